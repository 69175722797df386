/*
 * runuser.c: the guest's stand-in for util-linux runuser (the arm64 lab's
 * initramfs has busybox, whose su and setpriv cannot drop to a user
 * without a shell command line).
 *
 *   runuser -u USER [--] COMMAND [ARG...]
 *
 * Looks USER up in /etc/passwd, sets its groups, gid and uid, HOME and
 * USER, and execs COMMAND (PATH search) with the arguments unchanged.
 * Errors: wrong usage, unknown user or a failing set*id: message on stderr,
 * exit 125; COMMAND not found or not executable: exit 127.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct passwd *pw;
	int			i = 1;

	if (argc < 4 || strcmp(argv[1], "-u") != 0)
	{
		fprintf(stderr, "usage: runuser -u USER [--] COMMAND [ARG...]\n");
		return 125;
	}
	pw = getpwnam(argv[2]);
	if (pw == NULL)
	{
		fprintf(stderr, "runuser: unknown user %s\n", argv[2]);
		return 125;
	}
	i = 3;
	if (strcmp(argv[i], "--") == 0)
		i++;
	if (i >= argc)
	{
		fprintf(stderr, "runuser: no command\n");
		return 125;
	}
	if (initgroups(pw->pw_name, pw->pw_gid) != 0 || setgid(pw->pw_gid) != 0 ||
		setuid(pw->pw_uid) != 0)
	{
		fprintf(stderr, "runuser: cannot become %s: %s\n", pw->pw_name, strerror(errno));
		return 125;
	}
	setenv("HOME", pw->pw_dir, 1);
	setenv("USER", pw->pw_name, 1);
	setenv("LOGNAME", pw->pw_name, 1);
	execvp(argv[i], argv + i);
	fprintf(stderr, "runuser: %s: %s\n", argv[i], strerror(errno));
	return 127;
}
