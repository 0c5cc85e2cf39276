/* Benchmark Manager: reads the JSON input from stdin, returns the task after
 * KANBAN_DONE_TASK (tasks/tNNNNN.md, wrapping after BENCH_TASKS) and the tasks array of its
 * input copied verbatim. A counter file in the board folder ends the run after BENCH_STEPS
 * steps (next_task null), so a 10-task board can run as many steps as a 10,000-task one.
 * With BENCH_TIMES set, it also appends the wall clock (microseconds) at its start to the
 * file bench-times, a line a step: the long run's step times, taken outside the supervisor.
 * With BENCH_SIZES set, it appends the length of its input to bench-sizes (a fairness check). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static char *read_all(size_t *len) {
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  ssize_t got;
  while ((got = read(0, buf + n, cap - n)) > 0) {
    n += (size_t)got;
    if (n == cap) buf = realloc(buf, (cap *= 2) + 1);
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

static void note_time(void) {
  struct timeval now;
  gettimeofday(&now, NULL);
  FILE *times = fopen("bench-times", "a");
  if (!times) return;
  fprintf(times, "%lld\n", (long long)now.tv_sec * 1000000LL + now.tv_usec);
  fclose(times);
}

int main(void) {
  if (getenv("BENCH_TIMES")) note_time();
  size_t len;
  char *input = read_all(&len);
  if (getenv("BENCH_SIZES")) {
    FILE *sizes = fopen("bench-sizes", "a");
    if (sizes) {
      fprintf(sizes, "%zu\n", len);
      fclose(sizes);
    }
  }
  const char *done = getenv("KANBAN_DONE_TASK");
  long tasks = atol(getenv("BENCH_TASKS") ? getenv("BENCH_TASKS") : "0");
  long steps = atol(getenv("BENCH_STEPS") ? getenv("BENCH_STEPS") : "0");
  const char *key = "\"tasks\":[";
  char *list = strstr(input, key);
  char *end = list ? strchr(list, ']') : NULL;
  long index = 0;
  if (!done || !list || !end || sscanf(done, "tasks/t%ld.md", &index) != 1 || tasks <= 0) {
    fputs("{\"status\":\"error\",\"message\":\"bad input\"}\n", stdout);
    return 1;
  }
  long count = 0;
  FILE *counter = fopen("bench-count", "r");
  if (counter) {
    if (fscanf(counter, "%ld", &count) != 1) count = 0;
    fclose(counter);
  }
  count++;
  counter = fopen("bench-count", "w");
  if (counter) {
    fprintf(counter, "%ld\n", count);
    fclose(counter);
  }
  list += strlen(key) - 1;
  fputs("{\"status\":\"ok\",\"message\":\"next\",\"next_task\":", stdout);
  if (count >= steps) fputs("null", stdout);
  else printf("\"tasks/t%05ld.md\"", index % tasks + 1);
  fputs(",\"tasks\":", stdout);
  fwrite(list, 1, (size_t)(end - list + 1), stdout);
  fputs("}\n", stdout);
  return 0;
}
