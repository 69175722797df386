/*
 * bench/arm64-lab/insn-func.c: a qemu TCG plugin (qemu-plugin.h API
 * version 1, qemu 7.2) that counts executed guest instructions per
 * function, for bench/arm64-lab/insn-count --functions.
 *
 * Every translation block gets an inline counter (executions); at exit the
 * block's executions times its instructions are added to the symbol of its
 * first instruction (qemu_plugin_insn_symbol: the ELF symbol tables qemu
 * loaded, that is the program's and the loader's, static functions
 * included; code without a symbol, e.g. in shared libraries, is
 * "(none)"), and one line per symbol is written through qemu's plugin log
 * (-d plugin -D FILE): "<instructions> <symbol>", then "total <N>".
 * Blocks are told apart by start address and length.  A block that runs
 * on from one function into the next (a fall-through) counts for the
 * first: rare, since calls and returns end blocks.
 *
 * Build: gcc -O2 -shared -fPIC -I<qemu>/include/qemu $(pkg-config --cflags
 *   glib-2.0) -o libinsnfunc.so insn-func.c $(pkg-config --libs glib-2.0)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

typedef struct
{
	uint64_t	execs;			/* written by the inline op */
	uint64_t	n_insns;
	const char *symbol;
} Block;

static GHashTable *blocks;		/* (vaddr, length) -> Block */
static GMutex lock;

static void
tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t	vaddr = qemu_plugin_tb_vaddr(tb);
	size_t		n = qemu_plugin_tb_n_insns(tb);
	uint64_t	key = vaddr ^ ((uint64_t) n << 52);
	const char *sym = qemu_plugin_insn_symbol(qemu_plugin_tb_get_insn(tb, 0));
	Block	   *b;

	g_mutex_lock(&lock);
	b = g_hash_table_lookup(blocks, (gconstpointer) (uintptr_t) key);
	if (b == NULL)
	{
		b = g_new0(Block, 1);
		b->n_insns = n;
		b->symbol = sym ? g_strdup(sym) : "(none)";
		g_hash_table_insert(blocks, (gpointer) (uintptr_t) key, b);
	}
	g_mutex_unlock(&lock);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->execs, 1);
}

static void
at_exit(qemu_plugin_id_t id, void *p)
{
	GHashTable *per = g_hash_table_new(g_str_hash, g_str_equal);
	GHashTableIter it;
	gpointer	k, v;
	uint64_t	total = 0;
	GString    *out = g_string_new("");

	g_hash_table_iter_init(&it, blocks);
	while (g_hash_table_iter_next(&it, &k, &v))
	{
		Block	   *b = v;
		uint64_t   *sum = g_hash_table_lookup(per, b->symbol);

		if (sum == NULL)
		{
			sum = g_new0(uint64_t, 1);
			g_hash_table_insert(per, (gpointer) b->symbol, sum);
		}
		*sum += b->execs * b->n_insns;
		total += b->execs * b->n_insns;
	}
	g_hash_table_iter_init(&it, per);
	while (g_hash_table_iter_next(&it, &k, &v))
		g_string_append_printf(out, "%" PRIu64 " %s\n", *(uint64_t *) v, (const char *) k);
	g_string_append_printf(out, "total %" PRIu64 "\n", total);
	qemu_plugin_outs(out->str);
	g_string_free(out, TRUE);
}

QEMU_PLUGIN_EXPORT int
qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	blocks = g_hash_table_new(g_direct_hash, g_direct_equal);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
