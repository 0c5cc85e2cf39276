/* Benchmark worker for memory: prints BENCH_BYTES bytes of chatter (64 KiB writes of
 * 80-column lines), then its reply. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void) {
  static char block[65536];
  for (size_t i = 0; i < sizeof block; i++) block[i] = (i % 80 == 79) ? '\n' : 'a' + (char)(i % 26);
  long long total = atoll(getenv("BENCH_BYTES") ? getenv("BENCH_BYTES") : "0");
  while (total > 0) {
    size_t chunk = total < (long long)sizeof block ? (size_t)total : sizeof block;
    ssize_t wrote = write(1, block, chunk);
    if (wrote <= 0) return 1;
    total -= wrote;
  }
  const char *reply = "\n{\"status\":\"ok\",\"message\":\"printed a lot\"}\n";
  return write(1, reply, strlen(reply)) < 0;
}
