// What Swift cannot say or reach: the prefetch hint (header-only, inline), system calls
// that Swift's Glibc module does not declare, and a signal handler.
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "CFolioSupport.h"

int folio_start_writeback(int descriptor, long long offset, long long length) {
#ifdef SYNC_FILE_RANGE_WRITE
  return sync_file_range(descriptor, (off_t)offset, (off_t)length, SYNC_FILE_RANGE_WRITE);
#else
  (void)descriptor;
  (void)offset;
  (void)length;
  return 0;
#endif
}

static atomic_int interrupted;

static void note_interrupt(int signal_number) {
  atomic_store(&interrupted, 1);
  signal(signal_number, SIG_DFL);
}

void folio_catch_interrupts(void) {
  struct sigaction action = {0};
  action.sa_handler = note_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, NULL);
  // A process may start with SIGINT blocked (its parent's mask is inherited).
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigprocmask(SIG_UNBLOCK, &set, NULL);
}

int folio_interrupt_requested(void) { return atomic_load(&interrupted); }

int folio_flush_standard_output(void) {
  errno = 0;
  if (fflush(stdout) != 0 || ferror(stdout)) return errno != 0 ? errno : EIO;
  return 0;
}

int folio_write_standard_output(const void *bytes, unsigned long count) {
  if (count == 0) return 0;
  // What stdio holds goes first; then the bytes go straight to the descriptor, whose write
  // reports its own errno (stdio's buffered path can lose it, reporting no error at all).
  errno = 0;
  if (fflush(stdout) != 0) return errno != 0 ? errno : EIO;
  const char *next = bytes;
  while (count > 0) {
    ssize_t written = write(STDOUT_FILENO, next, count);
    if (written < 0) {
      if (errno == EINTR) continue;
      return errno != 0 ? errno : EIO;
    }
    next += written;
    count -= (unsigned long)written;
  }
  return 0;
}

int folio_open_pseudo_terminal(char *name, unsigned long capacity) {
  int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0) return -1;
  const char *path = NULL;
  if (grantpt(master) != 0 || unlockpt(master) != 0 || (path = ptsname(master)) == NULL ||
      strlen(path) >= capacity) {
    int saved = errno ? errno : ENAMETOOLONG;
    close(master);
    errno = saved;
    return -1;
  }
  strcpy(name, path);
  return master;
}
