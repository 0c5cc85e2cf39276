/* Benchmark worker: reads its stdin to the end (a real agent reads its prompt), then
 * prints the smallest valid reply. Nothing else, so the step's cost is the supervisor's. */
#include <stdio.h>
#include <unistd.h>

int main(void) {
  char buf[65536];
  while (read(0, buf, sizeof buf) > 0) {
  }
  fputs("{\"status\":\"ok\",\"message\":\"done\"}\n", stdout);
  return 0;
}
