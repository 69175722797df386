/*
 * stock_abi_probe.c: a module built against STOCK PostgreSQL 18 headers
 * and loaded into the patched server (tests/abi/stock_abi_check), to show
 * that the lock layer keeps PostgreSQL's ABI within the major version:
 *
 *	stock_abi_buffer_header_locks(n int) -> bigint
 *		takes and releases the buffer header lock of the first n buffers
 *		with the stock LockBufHdr() call and the stock inline
 *		UnlockBufHdr(), as pg_buffercache does; returns the number taken.
 *		The patched server keeps the exported LockBufHdr without an rseq
 *		section, so the lock layer's nesting depth must stay 0.
 *	stock_abi_lock_tranches() -> text[]
 *		the tranche names of the LWLocks that stock inline code finds
 *		through the offsets compiled into it: BufMappingPartitionLock(0)
 *		and (NUM_BUFFER_PARTITIONS - 1), LockHashPartitionLockByIndex(0),
 *		the first predicate lock partition
 *		(PREDICATELOCK_MANAGER_LWLOCK_OFFSET), and the last individual
 *		LWLock (MainLWLockArray[NUM_INDIVIDUAL_LWLOCKS - 1]); each is also
 *		acquired and released in shared mode.  Expected: BufferMapping,
 *		BufferMapping, LockManager, PredicateLockManager and the stock
 *		server's last individual LWLock (AioWorkerSubmissionQueue): an
 *		extra individual LWLock in the patched server would shift them.
 *
 * Errors: n < 0 or n > NBuffers: ERROR.
 *
 * tests/abi/stock_abi_probe.c
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"
#include "storage/lock.h"
#include "storage/lwlock.h"
#include "utils/array.h"
#include "utils/builtins.h"
/* PG_WAIT_LWLOCK: utils/wait_classes.h from PostgreSQL 18 on */
#if PG_VERSION_NUM >= 180000
#include "utils/wait_classes.h"
#else
#include "utils/wait_event.h"
#endif

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(stock_abi_buffer_header_locks);
PG_FUNCTION_INFO_V1(stock_abi_lock_tranches);

Datum
stock_abi_buffer_header_locks(PG_FUNCTION_ARGS)
{
	int32		n = PG_GETARG_INT32(0);
	int64		taken = 0;

	if (n < 0 || n > NBuffers)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("n must be between 0 and %d (shared_buffers), not %d",
						NBuffers, n)));
	for (int i = 0; i < n; i++)
	{
		BufferDesc *hdr = GetBufferDescriptor(i);
		uint32		state = LockBufHdr(hdr);

		UnlockBufHdr(hdr, state);
		taken++;
	}
	PG_RETURN_INT64(taken);
}

static Datum
TrancheOf(LWLock *lock)
{
	LWLockAcquire(lock, LW_SHARED);
	LWLockRelease(lock);
	return CStringGetTextDatum(GetLWLockIdentifier(PG_WAIT_LWLOCK,
												   lock->tranche));
}

Datum
stock_abi_lock_tranches(PG_FUNCTION_ARGS)
{
	Datum		names[5];

	names[0] = TrancheOf(BufMappingPartitionLockByIndex(0));
	names[1] = TrancheOf(BufMappingPartitionLockByIndex(NUM_BUFFER_PARTITIONS - 1));
	names[2] = TrancheOf(LockHashPartitionLockByIndex(0));
	names[3] = TrancheOf(&MainLWLockArray[PREDICATELOCK_MANAGER_LWLOCK_OFFSET].lock);
	names[4] = TrancheOf(&MainLWLockArray[NUM_INDIVIDUAL_LWLOCKS - 1].lock);
	PG_RETURN_ARRAYTYPE_P(construct_array_builtin(names, 5, TEXTOID));
}
