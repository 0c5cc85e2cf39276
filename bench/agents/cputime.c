/* Not an agent: runs a command and prints, as the last line of stderr, the user and system
 * CPU seconds of it and of the children it waited for, to the microsecond (GNU time's
 * `-f '%U %S'` prints hundredths), then exits with the command's status. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs("usage: cputime COMMAND [ARG...]\n", stderr);
    return 2;
  }
  pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    execvp(argv[1], argv + 1);
    perror(argv[1]);
    _exit(127);
  }
  int status;
  struct rusage usage;
  if (wait4(pid, &status, 0, &usage) < 0) return 1;
  fprintf(stderr, "%ld.%06ld %ld.%06ld\n", (long)usage.ru_utime.tv_sec, (long)usage.ru_utime.tv_usec, (long)usage.ru_stime.tv_sec, (long)usage.ru_stime.tv_usec);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
