/* Unit tests of target.c and target_check.c: probing, the write-safety checks on
 * real files and devices, opening and discarding (the safety rules themselves are
 * tested without root in test_safety.c).
 *
 * usage: test_target file|block
 *
 * file: the file cases, which run everywhere. block: the block-device cases, which
 * need root and loop devices; when every one of them is skipped the test exits 77
 * (skipped), never 0. Cases that need a tool or a kernel feature (mkfs.ext4, swap,
 * device-mapper, ramfs) skip themselves alone. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/blkpg.h>
#include <linux/loop.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

static int failures;
static int skips;

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			failures++;                                                              \
		}                                                                                \
	} while (0)

#define CHECK_EQ_INT(a, b)                                                                    \
	do {                                                                                  \
		long long va_ = (long long)(a), vb_ = (long long)(b);                         \
		if (va_ != vb_) {                                                             \
			fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, \
				__LINE__, #a, va_, #b, vb_);                                  \
			failures++;                                                           \
		}                                                                             \
	} while (0)

static void skip(const char *what, const char *why)
{
	fprintf(stderr, "SKIP %s: %s\n", what, why);
	skips++;
}

static char tmpdir[4096];

static void path_in_tmp(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmpdir, name);
}

static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	if (write(fd, data, len) != (ssize_t)len) {
		perror("write");
		exit(1);
	}
	close(fd);
}

static int run_quiet(char *const argv[])
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	int status;
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ---- file cases ------------------------------------------------------------------ */

static void test_probe_errors(void)
{
	static struct lg_target_info info, sentinel;
	memset(&sentinel, 0xAB, sizeof(sentinel));
	char path[4400];

	path_in_tmp(path, sizeof(path), "no-such-dir/file");
	info = sentinel;
	CHECK_EQ_INT(lg_target_probe(path, &info), -ENOENT);
	CHECK(memcmp(&info, &sentinel, sizeof(info)) == 0); /* untouched on failure */

	char regular[4200];
	path_in_tmp(regular, sizeof(regular), "plain");
	write_file(regular, "x", 1);
	snprintf(path, sizeof(path), "%s/below", regular);
	CHECK_EQ_INT(lg_target_probe(path, &info), -ENOTDIR);
	unlink(regular);

	CHECK_EQ_INT(lg_target_probe(tmpdir, &info), -ENOTSUP);
	CHECK_EQ_INT(lg_target_probe("/dev/null", &info), -ENOTSUP);
	path_in_tmp(path, sizeof(path), "fifo");
	if (mkfifo(path, 0600) == 0) {
		CHECK_EQ_INT(lg_target_probe(path, &info), -ENOTSUP);
		unlink(path);
	}
	char *longpath = malloc(5000);
	memset(longpath, 'a', 4999);
	longpath[4999] = '\0';
	CHECK_EQ_INT(lg_target_probe(longpath, &info), -ENAMETOOLONG);
	free(longpath);
	CHECK(memcmp(&info, &sentinel, sizeof(info)) == 0);
}

static bool xattrs_supported(const char *dir)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/.xattr-probe", dir);
	write_file(path, "", 0);
	bool ok = setxattr(path, "user.loadgen.test", "1", 1, 0) == 0;
	unlink(path);
	return ok;
}

static void test_create_and_reuse(void)
{
	char path[4200];
	path_in_tmp(path, sizeof(path), "created.bin");
	struct lg_target_info info;
	struct lg_target_check check;

	CHECK_EQ_INT(lg_target_probe(path, &info), 0);
	CHECK_EQ_INT(info.kind, LG_TARGET_FILE);
	CHECK(!info.exists);
	CHECK(!info.created_by_loadgen);
	CHECK_EQ_INT(info.capacity_bytes, 0);
	CHECK(strcmp(info.path, path) == 0);
	CHECK(info.devname[0] == '\0');
	CHECK_EQ_INT(info.dev_major, 0);
	CHECK(info.logical_block_size >= 512 &&
	      (info.logical_block_size & (info.logical_block_size - 1)) == 0);
	CHECK(info.physical_block_size >= info.logical_block_size);
	CHECK(info.supports_discard);

	CHECK_EQ_INT(lg_target_check_writable(&info, NULL, false, &check), 0);
	CHECK_EQ_INT(check.refusal, LG_REFUSE_NONE);

	int fd = -1;
	CHECK_EQ_INT(lg_target_open(&info, LG_OPEN_WRITE, 1 << 20, &fd), 0);
	CHECK(fd >= 0);
	struct stat st;
	CHECK(fstat(fd, &st) == 0 && st.st_size == 1 << 20);
	CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	/* The same (now stale) info opens the created file read-only, as a run's
	 * read tests do after its first write open. */
	int rfd = -1;
	CHECK_EQ_INT(lg_target_open(&info, 0, 0, &rfd), 0);
	struct stat rst;
	CHECK(fstat(rfd, &rst) == 0 && rst.st_ino == st.st_ino);
	close(rfd);
	close(fd);

	bool marked = getxattr(path, "user.loadgen.created", NULL, 0) >= 0;
	CHECK(marked == xattrs_supported(tmpdir));

	struct lg_target_info again;
	CHECK_EQ_INT(lg_target_probe(path, &again), 0);
	CHECK(again.exists);
	CHECK_EQ_INT(again.capacity_bytes, 1 << 20);
	CHECK(again.created_by_loadgen == marked);
	char real[4096];
	CHECK(realpath(path, real) && strcmp(again.real_path, real) == 0);
	int r = lg_target_check_writable(&again, NULL, false, &check);
	if (marked) {
		CHECK_EQ_INT(r, 0);
		CHECK_EQ_INT(check.refusal, LG_REFUSE_NONE);
	} else {
		/* Without xattrs a file is never known to be loadgen's. */
		CHECK_EQ_INT(r, -EPERM);
		CHECK_EQ_INT(check.refusal, LG_REFUSE_EXISTING_FILE);
	}
	unlink(path);
}

static void test_existing_file(void)
{
	char path[4200];
	path_in_tmp(path, sizeof(path), "precious.txt");
	char data[4096];
	memset(data, 'p', sizeof(data));
	write_file(path, data, sizeof(data));

	struct lg_target_info info;
	struct lg_target_check check, sentinel;
	CHECK_EQ_INT(lg_target_probe(path, &info), 0);
	CHECK(info.exists);
	CHECK(!info.created_by_loadgen);
	CHECK_EQ_INT(info.capacity_bytes, sizeof(data));

	CHECK_EQ_INT(lg_target_check_writable(&info, NULL, false, &check), -EPERM);
	CHECK_EQ_INT(check.refusal, LG_REFUSE_EXISTING_FILE);
	CHECK(strstr(check.detail, path) != NULL);
	CHECK(strstr(check.detail, "--force") != NULL);
	CHECK(check.signature[0] == '\0');

	CHECK_EQ_INT(lg_target_check_writable(&info, NULL, true, &check), 0);
	CHECK_EQ_INT(check.refusal, LG_REFUSE_NONE);

	/* Bad arguments leave the output alone. */
	memset(&sentinel, 0x5A, sizeof(sentinel));
	check = sentinel;
	CHECK_EQ_INT(lg_target_check_writable(NULL, NULL, false, &check), -EINVAL);
	CHECK(memcmp(&check, &sentinel, sizeof(check)) == 0);

	/* Opening an existing smaller file for writing extends it and keeps its data;
	 * a larger one is never shrunk. */
	int fd = -1;
	CHECK_EQ_INT(lg_target_open(&info, LG_OPEN_WRITE, 65536, &fd), 0);
	struct stat st;
	CHECK(fstat(fd, &st) == 0 && st.st_size == 65536);
	char back[4096];
	CHECK(pread(fd, back, sizeof(back), 0) == (ssize_t)sizeof(back));
	CHECK(memcmp(back, data, sizeof(data)) == 0);
	close(fd);
	CHECK_EQ_INT(lg_target_open(&info, LG_OPEN_WRITE, 100, &fd), 0);
	CHECK(fstat(fd, &st) == 0 && st.st_size == 65536);
	close(fd);

	/* Read-only opens cannot write. */
	CHECK_EQ_INT(lg_target_open(&info, 0, 0, &fd), 0);
	CHECK(write(fd, "x", 1) < 0 && errno == EBADF);
	close(fd);
	unlink(path);
}

static void test_open_races_and_readonly(void)
{
	char path[4200];
	path_in_tmp(path, sizeof(path), "race.bin");
	struct lg_target_info info;
	CHECK_EQ_INT(lg_target_probe(path, &info), 0);
	CHECK(!info.exists);

	/* A read-only open never creates a file. */
	int fd = 12345;
	CHECK_EQ_INT(lg_target_open(&info, 0, 4096, &fd), -ENOENT);
	CHECK_EQ_INT(fd, 12345);
	CHECK(access(path, F_OK) < 0);

	/* A file that appears between the probe and the open is not taken over. */
	write_file(path, "someone else's", 14);
	CHECK_EQ_INT(lg_target_open(&info, LG_OPEN_WRITE, 4096, &fd), -EEXIST);
	struct stat st;
	CHECK(stat(path, &st) == 0 && st.st_size == 14);
	unlink(path);
}

static void test_direct(void)
{
	char path[4200];
	path_in_tmp(path, sizeof(path), "direct.bin");
	int probe_fd = open(tmpdir, O_RDONLY | O_DIRECTORY);
	close(probe_fd);
	int t = open(path, O_RDWR | O_CREAT | O_DIRECT, 0644);
	if (t < 0) {
		skip("O_DIRECT on a file", "the test directory's filesystem cannot do direct I/O");
		unlink(path);
		return;
	}
	close(t);
	unlink(path);

	struct lg_target_info info;
	CHECK_EQ_INT(lg_target_probe(path, &info), 0);
	int fd = -1;
	CHECK_EQ_INT(lg_target_open(&info, LG_OPEN_WRITE | LG_OPEN_DIRECT, 1 << 20, &fd), 0);
	CHECK(fcntl(fd, F_GETFL) & O_DIRECT);
	void *buf = NULL;
	if (posix_memalign(&buf, 4096, 4096) != 0) {
		perror("posix_memalign");
		exit(1);
	}
	memset(buf, 7, 4096);
	CHECK(pwrite(fd, buf, 4096, 8192) == 4096);
	free(buf);
	close(fd);
	unlink(path);
}

static void test_discard_file(void)
{
	char path[4200];
	path_in_tmp(path, sizeof(path), "punch.bin");
	struct lg_target_info info;
	CHECK_EQ_INT(lg_target_probe(path, &info), 0);
	int fd = -1;
	const size_t size = 1 << 20;
	CHECK_EQ_INT(lg_target_open(&info, LG_OPEN_WRITE, size, &fd), 0);
	char *buf = malloc(size);
	memset(buf, 0xAA, size);
	CHECK(pwrite(fd, buf, size, 0) == (ssize_t)size);
	CHECK(fsync(fd) == 0);
	struct stat before, after;
	CHECK(fstat(fd, &before) == 0);

	const char *method = NULL;
	int r = lg_target_discard(fd, &info, 256 * 1024, 512 * 1024, &method);
	if (r == -EOPNOTSUPP) {
		skip("hole punching", "the filesystem cannot punch holes");
		CHECK(method == NULL);
	} else {
		CHECK_EQ_INT(r, 0);
		CHECK(method && strcmp(method, "punch-hole") == 0);
		CHECK(fstat(fd, &after) == 0);
		CHECK_EQ_INT(after.st_size, before.st_size);
		CHECK(before.st_blocks - after.st_blocks >= (512 * 1024) / 512);
		CHECK(pread(fd, buf, size, 0) == (ssize_t)size);
		bool zeros = true, kept = true;
		for (size_t i = 0; i < size; i++) {
			bool inside = i >= 256 * 1024 && i < 768 * 1024;
			if (inside && buf[i] != 0)
				zeros = false;
			if (!inside && (unsigned char)buf[i] != 0xAA)
				kept = false;
		}
		CHECK(zeros);
		CHECK(kept);
	}
	method = NULL;
	CHECK_EQ_INT(lg_target_discard(fd, &info, 0, 0, &method), 0);
	CHECK(method && strcmp(method, "punch-hole") == 0);
	CHECK_EQ_INT(lg_target_discard(-1, &info, 0, 4096, &method), -EINVAL);
	free(buf);
	close(fd);
	unlink(path);
}

static void test_file_rotational(void)
{
	char path[4200];
	path_in_tmp(path, sizeof(path), "rot.bin");
	write_file(path, "r", 1);
	struct stat st;
	CHECK(stat(path, &st) == 0);
	struct lg_target_info info;
	CHECK_EQ_INT(lg_target_probe(path, &info), 0);
	int expected = -1;
	if (major(st.st_dev) != 0) {
		char sys[256];
		snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/queue/rotational",
			 major(st.st_dev), minor(st.st_dev));
		if (access(sys, F_OK) != 0)
			snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/../queue/rotational",
				 major(st.st_dev), minor(st.st_dev));
		FILE *f = fopen(sys, "r");
		if (f) {
			if (fscanf(f, "%d", &expected) != 1)
				expected = -1;
			fclose(f);
		}
	}
	CHECK_EQ_INT(info.rotational, expected);
	unlink(path);

	struct statfs sfs;
	if (statfs("/dev/shm", &sfs) == 0 && sfs.f_type == TMPFS_MAGIC) {
		CHECK_EQ_INT(lg_target_probe("/dev/shm/loadgen-test-missing", &info), 0);
		CHECK_EQ_INT(info.rotational, -1); /* tmpfs has no backing disk */
		CHECK_EQ_INT(info.logical_block_size >= 512, 1);
	}
}

/* Root only: filesystems that cannot do direct I/O or run out of space. */
static void test_file_mount_cases(void)
{
	if (geteuid() != 0) {
		skip("O_DIRECT refusal and ENOSPC on small filesystems", "not root");
		return;
	}
	char mnt[4200];
	path_in_tmp(mnt, sizeof(mnt), "mnt");
	CHECK(mkdir(mnt, 0755) == 0);
	char path[4300];
	snprintf(path, sizeof(path), "%s/target.bin", mnt);
	struct lg_target_info info;
	int fd = -1;

	/* ramfs has no direct I/O: the open fails and leaves no file behind. */
	if (mount("ramfs", mnt, "ramfs", 0, NULL) == 0) {
		CHECK_EQ_INT(lg_target_probe(path, &info), 0);
		CHECK_EQ_INT(lg_target_open(&info, LG_OPEN_WRITE | LG_OPEN_DIRECT, 4096, &fd),
			     -EINVAL);
		CHECK(access(path, F_OK) < 0);
		/* Buffered is fine there. */
		CHECK_EQ_INT(lg_target_open(&info, LG_OPEN_WRITE, 4096, &fd), 0);
		close(fd);
		umount2(mnt, MNT_DETACH);
	} else {
		skip("O_DIRECT refusal on ramfs", strerror(errno));
	}

	/* A file larger than the free space: ENOSPC at open, nothing left behind. */
	if (mount("tmpfs", mnt, "tmpfs", 0, "size=1m") == 0) {
		CHECK_EQ_INT(lg_target_probe(path, &info), 0);
		CHECK_EQ_INT(info.rotational, -1);
		CHECK_EQ_INT(lg_target_open(&info, LG_OPEN_WRITE, 64 << 20, &fd), -ENOSPC);
		CHECK(access(path, F_OK) < 0);
		umount2(mnt, MNT_DETACH);
	} else {
		skip("ENOSPC on tmpfs", strerror(errno));
	}
	rmdir(mnt);
}

/* ---- block-device cases (root, loop devices) -------------------------------------- */

struct loopdev {
	int fd; /* open on /dev/loopN; the device is released with it (autoclear) */
	char path[64];
	char backing[4200];
};

static int loop_attach(const char *backing, bool partscan, struct loopdev *ret)
{
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -errno;
	int bfd = open(backing, O_RDWR | O_CLOEXEC);
	if (bfd < 0) {
		close(ctl);
		return -errno;
	}
	int r = -EBUSY;
	for (int attempt = 0; attempt < 20 && r == -EBUSY; attempt++) {
		int n = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (n < 0) {
			r = -errno;
			break;
		}
		char path[64];
		snprintf(path, sizeof(path), "/dev/loop%d", n);
		int fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			r = -errno;
			break;
		}
		struct loop_config cfg = {0};
		cfg.fd = (unsigned)bfd;
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR | (partscan ? LO_FLAGS_PARTSCAN : 0);
		snprintf((char *)cfg.info.lo_file_name, sizeof(cfg.info.lo_file_name), "%s",
			 backing);
		if (ioctl(fd, LOOP_CONFIGURE, &cfg) == 0) {
			ret->fd = fd;
			snprintf(ret->path, sizeof(ret->path), "%s", path);
			snprintf(ret->backing, sizeof(ret->backing), "%s", backing);
			r = 0;
		} else {
			r = -errno;
			close(fd);
		}
	}
	close(bfd);
	close(ctl);
	return r;
}

static void loop_detach(struct loopdev *loop)
{
	if (loop->fd >= 0) {
		ioctl(loop->fd, LOOP_CLR_FD);
		close(loop->fd);
		loop->fd = -1;
	}
}

static void make_backing(const char *name, off_t size, char *ret_path, size_t len)
{
	path_in_tmp(ret_path, len, name);
	int fd = open(ret_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, size) < 0) {
		perror(ret_path);
		exit(1);
	}
	close(fd);
}

static void dev_write(const struct loopdev *loop, off_t off, const void *data, size_t len)
{
	CHECK(pwrite(loop->fd, data, len, off) == (ssize_t)len);
	CHECK(fsync(loop->fd) == 0);
}

static void dev_zero_start(const struct loopdev *loop)
{
	static char zeros[128 * 1024];
	dev_write(loop, 0, zeros, sizeof(zeros));
}

static enum lg_target_refusal refusal_of(const char *target, const char *confirm, int *ret_r,
					 struct lg_target_check *ret_check)
{
	struct lg_target_info info;
	int r = lg_target_probe(target, &info);
	CHECK_EQ_INT(r, 0);
	if (r < 0)
		return LG_REFUSE_NOT_SUPPORTED;
	struct lg_target_check check;
	memset(&check, 0, sizeof(check));
	r = lg_target_check_writable(&info, confirm, false, &check);
	if (ret_r)
		*ret_r = r;
	if (ret_check)
		*ret_check = check;
	return check.refusal;
}

static void expect_signature(const struct loopdev *loop, off_t off, const void *magic, size_t len,
			     const char *expected)
{
	dev_zero_start(loop);
	dev_write(loop, off, magic, len);
	struct lg_target_check check;
	int r;
	CHECK_EQ_INT(refusal_of(loop->path, loop->path, &r, &check), LG_REFUSE_NONE);
	CHECK_EQ_INT(r, 0);
	if (strcmp(check.signature, expected) != 0) {
		fprintf(stderr, "signature at %lld: got \"%s\", expected \"%s\"\n", (long long)off,
			check.signature, expected);
		failures++;
	}
}

static void test_loop_probe_and_confirm(const struct loopdev *loop, const struct loopdev *other)
{
	struct lg_target_info info;
	CHECK_EQ_INT(lg_target_probe(loop->path, &info), 0);
	CHECK_EQ_INT(info.kind, LG_TARGET_BLOCK);
	CHECK(info.exists);
	CHECK_EQ_INT(info.dev_major, 7);
	CHECK(strncmp(info.devname, "loop", 4) == 0);
	CHECK(strcmp(info.real_path, loop->path) == 0);
	CHECK_EQ_INT(info.capacity_bytes, 64 << 20);
	CHECK_EQ_INT(info.logical_block_size, 512);
	CHECK(info.physical_block_size >= 512);
	CHECK(info.rotational == 0 || info.rotational == 1);
	CHECK(strstr(info.model, "loop") != NULL);
	CHECK(strstr(info.model, loop->backing) != NULL);
	CHECK(info.supports_discard);
	struct stat st;
	CHECK(stat(loop->path, &st) == 0 && info.dev_minor == minor(st.st_rdev));

	struct lg_target_check check;
	int r;
	CHECK_EQ_INT(refusal_of(loop->path, NULL, &r, &check), LG_REFUSE_NO_CONFIRM);
	CHECK_EQ_INT(r, -EPERM);
	CHECK(strstr(check.detail, "--destroy-data") != NULL);
	CHECK_EQ_INT(refusal_of(loop->path, "", &r, NULL), LG_REFUSE_NO_CONFIRM);
	CHECK_EQ_INT(refusal_of(loop->path, other->path, &r, &check), LG_REFUSE_CONFIRM_MISMATCH);
	CHECK_EQ_INT(r, -EPERM);
	CHECK(strstr(check.detail, other->path) != NULL);
	CHECK_EQ_INT(refusal_of(loop->path, "/dev/null", &r, NULL), LG_REFUSE_CONFIRM_MISMATCH);
	CHECK_EQ_INT(refusal_of(loop->path, "/dev/no-such-device", &r, NULL),
		     LG_REFUSE_CONFIRM_MISMATCH);
	CHECK_EQ_INT(refusal_of(loop->path, loop->backing, &r, NULL), LG_REFUSE_CONFIRM_MISMATCH);
	CHECK_EQ_INT(refusal_of(loop->path, loop->path, &r, &check), LG_REFUSE_NONE);
	CHECK_EQ_INT(r, 0);
	CHECK(check.signature[0] == '\0'); /* all zeros */

	/* Symlinks resolve: to the device in --destroy-data, and as the target. */
	char link[4200];
	path_in_tmp(link, sizeof(link), "dev-link");
	CHECK(symlink(loop->path, link) == 0);
	CHECK_EQ_INT(refusal_of(loop->path, link, &r, NULL), LG_REFUSE_NONE);
	CHECK_EQ_INT(r, 0);
	CHECK_EQ_INT(lg_target_probe(link, &info), 0);
	CHECK(strcmp(info.real_path, loop->path) == 0);
	CHECK(strcmp(info.path, link) == 0);
	CHECK_EQ_INT(refusal_of(link, loop->path, &r, NULL), LG_REFUSE_NONE);
	unlink(link);
}

/* The first bytes of the device reach the signature rules (each rule is tested in
 * test_safety.c): one signature, then none. */
static void test_loop_signatures(const struct loopdev *loop)
{
	unsigned char ext[0x64] = {0};
	ext[56] = 0x53, ext[57] = 0xEF;
	ext[0x60] = 0x40; /* extents */
	expect_signature(loop, 1024, ext, sizeof(ext), "ext4 superblock");
	dev_zero_start(loop);
	expect_signature(loop, 0, "", 0, "");
}

static void test_loop_busy_open_discard(const struct loopdev *loop)
{
	struct lg_target_info info;
	CHECK_EQ_INT(lg_target_probe(loop->path, &info), 0);

	/* Another exclusive opener makes the device busy. */
	int holder = open(loop->path, O_RDONLY | O_EXCL | O_CLOEXEC);
	CHECK(holder >= 0);
	struct lg_target_check check;
	int r;
	CHECK_EQ_INT(refusal_of(loop->path, loop->path, &r, &check), LG_REFUSE_BUSY);
	CHECK_EQ_INT(r, -EPERM);
	int fd = -1;
	CHECK_EQ_INT(lg_target_open(&info, LG_OPEN_WRITE | LG_OPEN_EXCL, 0, &fd), -EBUSY);
	close(holder);

	/* loadgen's own exclusive open keeps others out for the run. */
	CHECK_EQ_INT(lg_target_open(&info, LG_OPEN_WRITE | LG_OPEN_DIRECT | LG_OPEN_EXCL, 0, &fd),
		     0);
	CHECK(fcntl(fd, F_GETFL) & O_DIRECT);
	CHECK(open(loop->path, O_RDONLY | O_EXCL | O_CLOEXEC) < 0 && errno == EBUSY);

	/* Discarding a written range gives the loop's backing file its blocks back. */
	const size_t size = 8 << 20;
	void *buf = NULL;
	if (posix_memalign(&buf, 4096, size) != 0) {
		perror("posix_memalign");
		exit(1);
	}
	memset(buf, 0x5C, size);
	CHECK(pwrite(fd, buf, size, 0) == (ssize_t)size);
	CHECK(fsync(fd) == 0);
	struct stat before, after;
	CHECK(stat(loop->backing, &before) == 0);
	const char *method = NULL;
	r = lg_target_discard(fd, &info, 0, size, &method);
	CHECK_EQ_INT(r, 0);
	CHECK(method && strcmp(method, "blkdiscard") == 0);
	CHECK(stat(loop->backing, &after) == 0);
	CHECK(before.st_blocks - after.st_blocks >= (blkcnt_t)(size / 512));
	CHECK(pread(fd, buf, size, 0) == (ssize_t)size);
	bool zeros = true;
	for (size_t i = 0; i < size; i++)
		if (((unsigned char *)buf)[i] != 0)
			zeros = false;
	CHECK(zeros);
	free(buf);
	close(fd);

	/* A read-only descriptor cannot discard. */
	CHECK_EQ_INT(lg_target_open(&info, 0, 0, &fd), 0);
	r = lg_target_discard(fd, &info, 0, 4096, &method);
	CHECK(r == -EBADF || r == -EPERM);
	close(fd);
}

/* What mkswap writes: version 1, the last usable page, and the signature at the end
 * of the first page. */
static void write_swap_header(int fd, size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *hdr = calloc(1, (size_t)page);
	uint32_t version = 1, last_page = (uint32_t)(size / (size_t)page - 1);
	memcpy(hdr + 1024, &version, 4);
	memcpy(hdr + 1028, &last_page, 4);
	memcpy(hdr + page - 10, "SWAPSPACE2", 10);
	CHECK(pwrite(fd, hdr, (size_t)page, 0) == page);
	CHECK(fsync(fd) == 0);
	free(hdr);
}

static void test_loop_swap(const struct loopdev *loop)
{
	write_swap_header(loop->fd, 64 << 20);
	if (syscall(SYS_swapon, loop->path, 0) < 0) {
		skip("swap refusal", strerror(errno));
		dev_zero_start(loop);
		return;
	}
	struct lg_target_check check;
	int r;
	CHECK_EQ_INT(refusal_of(loop->path, loop->path, &r, &check), LG_REFUSE_SWAP);
	CHECK_EQ_INT(r, -EPERM);
	CHECK(strstr(check.detail, "swap") != NULL);
	CHECK(syscall(SYS_swapoff, loop->path) == 0);
	CHECK_EQ_INT(refusal_of(loop->path, loop->path, &r, &check), LG_REFUSE_NONE);
	CHECK(strcmp(check.signature, "swap signature") == 0);
	dev_zero_start(loop);
}

static bool mkfs_ext4(const char *dev)
{
	char *argv[] = {"mkfs.ext4", "-q", "-F", (char *)dev, NULL};
	return run_quiet(argv) == 0;
}

static void test_loop_mounted(const struct loopdev *loop)
{
	if (!mkfs_ext4(loop->path)) {
		skip("mounted-device refusal", "mkfs.ext4 is unavailable");
		return;
	}
	char mnt[4200];
	path_in_tmp(mnt, sizeof(mnt), "mnt-whole");
	CHECK(mkdir(mnt, 0755) == 0);
	struct lg_target_check check;
	int r;
	CHECK_EQ_INT(refusal_of(loop->path, loop->path, &r, &check), LG_REFUSE_NONE);
	CHECK(strcmp(check.signature, "ext4 superblock") == 0);
	if (mount(loop->path, mnt, "ext4", 0, NULL) < 0) {
		skip("mounted-device refusal", strerror(errno));
	} else {
		CHECK_EQ_INT(refusal_of(loop->path, loop->path, &r, &check), LG_REFUSE_MOUNTED);
		CHECK_EQ_INT(r, -EPERM);
		CHECK(strstr(check.detail, mnt) != NULL);
		CHECK(strcmp(check.signature, "ext4 superblock") ==
		      0); /* reported on refusals too */
		CHECK(umount2(mnt, 0) == 0);
		CHECK_EQ_INT(refusal_of(loop->path, loop->path, &r, &check), LG_REFUSE_NONE);
	}
	rmdir(mnt);
	dev_zero_start(loop);
}

static bool wait_for(const char *path, int tries)
{
	for (int i = 0; i < tries; i++) {
		if (access(path, F_OK) == 0)
			return true;
		usleep(10000);
	}
	return false;
}

static void test_loop_partitions(void)
{
	char backing[4200];
	make_backing("parted.img", 64 << 20, backing, sizeof(backing));
	/* One partition from sector 2048 to the end, type Linux. */
	unsigned char mbr[512] = {0};
	uint32_t start = 2048, count = (64 << 20) / 512 - 2048;
	mbr[446 + 4] = 0x83;
	memcpy(mbr + 446 + 8, &start, 4);
	memcpy(mbr + 446 + 12, &count, 4);
	mbr[510] = 0x55, mbr[511] = 0xAA;
	int bfd = open(backing, O_WRONLY | O_CLOEXEC);
	CHECK(bfd >= 0 && pwrite(bfd, mbr, sizeof(mbr), 0) == (ssize_t)sizeof(mbr));
	close(bfd);

	struct loopdev loop = {.fd = -1};
	int r = loop_attach(backing, true, &loop);
	if (r < 0) {
		skip("partition cases", strerror(-r));
		unlink(backing);
		return;
	}
	char part[80];
	snprintf(part, sizeof(part), "%sp1", loop.path);
	if (!wait_for(part, 50)) {
		/* A kernel without the MBR parser: declare the partition as partx does. */
		struct blkpg_partition p = {
			.start = (long long)start * 512,
			.length = (long long)count * 512,
			.pno = 1,
		};
		struct blkpg_ioctl_arg arg = {
			.op = BLKPG_ADD_PARTITION,
			.datalen = sizeof(p),
			.data = &p,
		};
		if (ioctl(loop.fd, BLKPG, &arg) < 0)
			fprintf(stderr, "BLKPG_ADD_PARTITION: %s\n", strerror(errno));
	}
	if (!wait_for(part, 200)) {
		skip("partition cases", "the partition node did not appear");
		goto cleanup;
	}

	struct lg_target_info info;
	CHECK_EQ_INT(lg_target_probe(part, &info), 0);
	CHECK_EQ_INT(info.kind, LG_TARGET_BLOCK);
	CHECK_EQ_INT(info.capacity_bytes, (uint64_t)count * 512);
	CHECK(strstr(info.devname, "p1") != NULL);
	CHECK(strstr(info.model, backing) != NULL); /* the whole disk's identity */
	CHECK_EQ_INT(info.logical_block_size, 512);

	struct lg_target_check check;
	CHECK_EQ_INT(refusal_of(loop.path, loop.path, &r, &check), LG_REFUSE_NONE);
	CHECK(strcmp(check.signature, "MBR partition table") == 0);
	/* The whole disk does not stand for its partition, nor the other way round. */
	CHECK_EQ_INT(refusal_of(part, loop.path, &r, NULL), LG_REFUSE_CONFIRM_MISMATCH);
	CHECK_EQ_INT(refusal_of(loop.path, part, &r, NULL), LG_REFUSE_CONFIRM_MISMATCH);

	int pfd = open(part, O_RDWR | O_CLOEXEC);
	CHECK(pfd >= 0);
	write_swap_header(pfd, (size_t)count * 512);
	close(pfd);
	if (syscall(SYS_swapon, part, 0) == 0) {
		CHECK_EQ_INT(refusal_of(loop.path, loop.path, &r, &check), LG_REFUSE_SWAP);
		CHECK(strstr(check.detail, "p1") != NULL);
		CHECK(syscall(SYS_swapoff, part) == 0);
	} else {
		skip("partition swap refusal", strerror(errno));
	}

	if (!mkfs_ext4(part)) {
		skip("partition-mounted refusal", "mkfs.ext4 is unavailable");
		goto cleanup;
	}
	char mnt[4200];
	path_in_tmp(mnt, sizeof(mnt), "mnt part"); /* a space, escaped in mountinfo */
	CHECK(mkdir(mnt, 0755) == 0);
	if (mount(part, mnt, "ext4", 0, NULL) < 0) {
		skip("partition-mounted refusal", strerror(errno));
	} else {
		CHECK_EQ_INT(refusal_of(loop.path, loop.path, &r, &check),
			     LG_REFUSE_PARTITION_MOUNTED);
		CHECK_EQ_INT(r, -EPERM);
		CHECK(strstr(check.detail, mnt) != NULL);
		CHECK(strstr(check.detail, "p1") != NULL);
		CHECK_EQ_INT(refusal_of(part, part, &r, NULL), LG_REFUSE_MOUNTED);
		CHECK(umount2(mnt, 0) == 0);
		CHECK_EQ_INT(refusal_of(loop.path, loop.path, &r, NULL), LG_REFUSE_NONE);
	}
	rmdir(mnt);
cleanup:
	loop_detach(&loop);
	unlink(backing);
}

static void test_loop_holders(const struct loopdev *loop)
{
	if (access("/dev/mapper/control", F_OK) != 0) {
		skip("holders refusal", "device-mapper is unavailable");
		return;
	}
	char table[128];
	snprintf(table, sizeof(table), "0 %d linear %s 0", (64 << 20) / 512, loop->path);
	char name[64];
	snprintf(name, sizeof(name), "loadgen-unit-%d", (int)getpid());
	char *create[] = {"dmsetup", "create", name, "--table", table, NULL};
	if (run_quiet(create) != 0) {
		skip("holders refusal", "dmsetup create failed");
		return;
	}
	struct lg_target_check check;
	int r;
	CHECK_EQ_INT(refusal_of(loop->path, loop->path, &r, &check), LG_REFUSE_HOLDERS);
	CHECK(strstr(check.detail, "dm-") != NULL);
	char *remove[] = {"dmsetup", "remove", name, NULL};
	CHECK(run_quiet(remove) == 0);
	CHECK_EQ_INT(refusal_of(loop->path, loop->path, &r, NULL), LG_REFUSE_NONE);
}

/* The block-device cases; returns 0 when none could run. */
static int test_block_devices(void)
{
	if (geteuid() != 0) {
		skip("block-device cases", "not root");
		return 0;
	}
	if (access("/dev/loop-control", F_OK) != 0) {
		skip("block-device cases", "no loop devices");
		return 0;
	}
	char backing[4200], backing2[4200];
	make_backing("disk.img", 64 << 20, backing, sizeof(backing));
	make_backing("other.img", 64 << 20, backing2, sizeof(backing2));
	struct loopdev loop = {.fd = -1}, other = {.fd = -1};
	int r = loop_attach(backing, false, &loop);
	if (r == 0)
		r = loop_attach(backing2, false, &other);
	int ran = r == 0;
	if (r < 0) {
		skip("block-device cases", strerror(-r));
	} else {
		test_loop_probe_and_confirm(&loop, &other);
		test_loop_signatures(&loop);
		test_loop_busy_open_discard(&loop);
		test_loop_swap(&loop);
		test_loop_holders(&loop);
		test_loop_mounted(&loop);
		test_loop_partitions();
	}
	loop_detach(&loop);
	loop_detach(&other);
	unlink(backing);
	unlink(backing2);
	return ran;
}

int main(int argc, char **argv)
{
	bool block = argc == 2 && strcmp(argv[1], "block") == 0;

	if (argc != 2 || (!block && strcmp(argv[1], "file") != 0)) {
		fprintf(stderr, "usage: test_target file|block\n");
		return 2;
	}
	/* On the local disk rather than a tmpfs /tmp: direct I/O and xattrs behave as
	 * on a real target. */
	const char *base = getenv("LOADGEN_TEST_DIR");
	if (!base || !*base)
		base = access("/var/tmp", W_OK) == 0 ? "/var/tmp" : "/tmp";
	snprintf(tmpdir, sizeof(tmpdir), "%s/loadgen-test-target-XXXXXX", base);
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}

	int ran = 0;
	if (block) {
		ran = test_block_devices();
	} else {
		test_probe_errors();
		test_create_and_reuse();
		test_existing_file();
		test_open_races_and_readonly();
		test_direct();
		test_discard_file();
		test_file_rotational();
		test_file_mount_cases();
		ran = 1;
	}

	if (rmdir(tmpdir) < 0)
		fprintf(stderr, "warning: %s left behind: %s\n", tmpdir, strerror(errno));
	fprintf(stderr, "test_target %s: %d failure(s), %d skipped case(s)\n", argv[1], failures,
		skips);
	if (failures)
		return 1;
	return ran ? 0 : 77;
}
