/* SPDX-License-Identifier: MIT */
/* fuzz/replay.c - runs fuzz inputs through a target without libFuzzer (any compiler).
 *
 *   fuzz_<name>_replay FILE_OR_DIR...
 *
 * Each file, and every regular file directly inside each directory, is read and passed once to
 * LLVMFuzzerTestOneInput. A violated property aborts and the failing input's name is printed;
 * sanitizers end the process with _exit instead, so set MF_REPLAY_VERBOSE=1 (every name is printed
 * before it runs) or UBSAN_OPTIONS=abort_on_error=1 to see it. Running no input at all is an error
 * too, so a missing or empty corpus never passes.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *current;
static int verbose;

static void on_abort(int sig)
{
    (void)sig;
    if (current) {
        static const char msg[] = "replay: failing input: ";
        if (write(2, msg, sizeof msg - 1) < 0 || write(2, current, strlen(current)) < 0 || write(2, "\n", 1) < 0)
            _exit(134);
    }
    signal(SIGABRT, SIG_DFL);
    raise(SIGABRT);
}

/* Run one file; returns 0 on success, -1 if it cannot be read. */
static int run_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t len = 0, cap = 0;
    if (!fp) {
        perror(path);
        return -1;
    }
    for (;;) {
        size_t got;
        if (len == cap) {
            unsigned char *nb;
            cap = cap ? 2 * cap : 4096;
            nb = (unsigned char *)realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(fp);
                fprintf(stderr, "%s: out of memory\n", path);
                return -1;
            }
            buf = nb;
        }
        got = fread(buf + len, 1, cap - len, fp);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(fp)) {
        perror(path);
        free(buf);
        fclose(fp);
        return -1;
    }
    fclose(fp);
    current = path;
    if (verbose) {
        fprintf(stderr, "replay: %s\n", path);
        fflush(stderr);
    }
    /* a copy of exactly len bytes, so that ASan sees reads past the end of the input */
    {
        unsigned char *exact = (unsigned char *)malloc(len ? len : 1);
        if (!exact) {
            free(buf);
            return -1;
        }
        if (len)
            memcpy(exact, buf, len);
        free(buf);
        LLVMFuzzerTestOneInput(exact, len);
        free(exact);
    }
    current = NULL;
    return 0;
}

int main(int argc, char **argv)
{
    long files = 0;
    int i, bad = 0;
    signal(SIGABRT, on_abort);
    verbose = getenv("MF_REPLAY_VERBOSE") != NULL && *getenv("MF_REPLAY_VERBOSE") != '0';
    for (i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            bad = 1;
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            DIR *d = opendir(argv[i]);
            struct dirent *e;
            if (!d) {
                perror(argv[i]);
                bad = 1;
                continue;
            }
            while ((e = readdir(d)) != NULL) {
                size_t need = strlen(argv[i]) + strlen(e->d_name) + 2;
                char *path;
                struct stat fst;
                if (e->d_name[0] == '.')
                    continue;
                path = (char *)malloc(need);
                if (!path) {
                    bad = 1;
                    break;
                }
                snprintf(path, need, "%s/%s", argv[i], e->d_name);
                if (stat(path, &fst) == 0 && S_ISREG(fst.st_mode)) {
                    if (run_file(path) == 0)
                        files++;
                    else
                        bad = 1;
                }
                free(path);
            }
            closedir(d);
        } else if (run_file(argv[i]) == 0) {
            files++;
        } else {
            bad = 1;
        }
    }
    printf("replay: %ld input(s) passed\n", files);
    if (files == 0) {
        fprintf(stderr, "replay: no inputs were run (usage: %s FILE_OR_DIR...)\n", argv[0]);
        return 1;
    }
    return bad ? 1 : 0;
}
