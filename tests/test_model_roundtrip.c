/*
 * test_model_roundtrip.c -- every model grove reads is one it writes back and reads again: each
 * file of tests/data/models/ (the format fixtures of every version and encoding) and of the
 * fuzz seed corpora fuzz/corpus/model/ and fuzz/corpus/roundtrip/ (models of every algorithm
 * family, text, gzip and binary, and the files the fuzz campaigns kept) that loads is checked
 * by fuzz/roundtrip_check.h: it predicts numbers on ordinary rows (probabilities in [0, 1]
 * summing to 1, finite regression values), its JSON text and .gvb file load again, re-saving
 * either gives the same bytes, and the reloaded model predicts the same bits.  (The models the
 * CLI trains in tests/cli_model_hashes.sh are converted to .gvb and back there.)  A 60-level
 * parameter key once loaded and was then written as files grove refused; this keeps every
 * model the suite and the fuzzers know from doing that.
 */
#include "check.h"

#include "../fuzz/roundtrip_check.h"

#include <dirent.h>
#include <unistd.h>

static char tmpdir[256];

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Checks every file of `dir` that loads; the number that did in *n_loaded. */
static void check_dir(const char *dir, size_t *n_loaded)
{
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d) return;
    char *names[4096];
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL && n < 4096;)
        if (e->d_name[0] != '.') names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, n, sizeof *names, cmp);
    for (size_t i = 0; i < n; i++) {
        char path[1024], why[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        grove_model *m = NULL;
        if (grove_model_load(path, &m) == GROVE_OK) {
            ++*n_loaded;
            if (rt_check(m, tmpdir, why, sizeof why) != 0) CHECK_FAIL_("%s: %s", path, why);
        }
        grove_model_free(m);
        free(names[i]);
    }
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/grove-test-roundtrip-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    size_t fixtures = 0, model = 0, roundtrip = 0;
    check_dir("tests/data/models", &fixtures);
    check_dir("fuzz/corpus/model", &model);
    check_dir("fuzz/corpus/roundtrip", &roundtrip);
    /* the directories hold models that load: the check is not vacuous */
    CHECK(fixtures >= 5);
    CHECK(model >= 30);
    CHECK(roundtrip >= 30);
    printf("models checked: %zu fixtures, %zu of fuzz/corpus/model, %zu of fuzz/corpus/roundtrip\n",
           fixtures, model, roundtrip);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", tmpdir);
    TEST_MAIN_END();
}
