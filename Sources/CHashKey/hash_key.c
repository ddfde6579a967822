#include "hash_key.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

uint64_t analyze_hash_key_storage;

/// Whether `ANALYZE_HASH_SEED` was set but not read as a key.
static int seed_malformed;

int analyze_hash_key_seed_malformed(void) { return seed_malformed; }

int analyze_hash_key_parse(const char *text, uint64_t *value) {
    int negative = 0;
    if (*text == '+' || *text == '-') negative = *text++ == '-';
    if (*text == 0) return 0;
    uint64_t result = 0;
    for (; *text; text++) {
        if (*text < '0' || *text > '9') return 0;
        uint64_t digit = (uint64_t)(*text - '0');
        if (result > (UINT64_MAX - digit) / 10) return 0;
        result = result * 10 + digit;
    }
    if (negative && result != 0) return 0;
    *value = result;
    return 1;
}

/// Runs when the program (or a test bundle) is loaded, before any Swift code.
__attribute__((constructor)) static void analyze_hash_key_draw(void) {
    const char *seed = getenv("ANALYZE_HASH_SEED");
    if (seed && analyze_hash_key_parse(seed, &analyze_hash_key_storage)) return;
    seed_malformed = seed != NULL;
    uint64_t key;
    if (getrandom(&key, sizeof key, 0) == (ssize_t)sizeof key) {
        analyze_hash_key_storage = key;
        return;
    }
    // Without getrandom (an old kernel, a seccomp sandbox): /dev/urandom, as
    // Swift's SystemRandomNumberGenerator does.
    FILE *urandom = fopen("/dev/urandom", "rb");
    if (urandom) {
        size_t read = fread(&key, sizeof key, 1, urandom);
        fclose(urandom);
        if (read == 1) {
            analyze_hash_key_storage = key;
            return;
        }
    }
    // No entropy source at all: the time and the process id (guessable, so
    // only the accidental-collision odds hold; no output depends on the key).
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    analyze_hash_key_storage = ((uint64_t)now.tv_sec * 1000000007u) ^ (uint64_t)now.tv_nsec ^ ((uint64_t)getpid() << 40);
}
