/*
 * test_data.c -- the data module: CSV, LIBSVM and array loading, schemas, subsets.
 *
 * Runs from the repository root (GROVE_SRC may name it).  Covers: the bundled example files
 * (shapes, class order, category codes, missing counts), number parsing against strtod on
 * random strings, CSV syntax (quotes, CRLF, BOM, blank lines), task inference, column
 * parameters, loading with a schema (unseen categories, unknown classes), gzip, LIBSVM absent =
 * zero/missing, arrays, subsets, accessors, thread-count independence, every allocation
 * failing in turn, random mutations of a valid file, and the malformed-input corpus
 * tests/data/bad/EXPECT.tsv.
 */
#include "check.h"

#include "core/core.h"
#include "core/params.h"
#include "data/dataset.h"

#include <errno.h>
#include <float.h>
#include <stdint.h>
#include <unistd.h>
#include <zlib.h>

/* ---- helpers ---- */

static char tmp_dir[64];
static char tmp_files[256][128];
static int n_tmp_files;

/* A path in the test's temporary folder; the file is removed at exit. */
static const char *tmp_path(const char *name)
{
    if (n_tmp_files == 256) abort();
    char *p = tmp_files[n_tmp_files];
    snprintf(p, sizeof tmp_files[0], "%s/%s", tmp_dir, name);
    for (int k = 0; k < n_tmp_files; k++)
        if (!strcmp(tmp_files[k], p)) return tmp_files[k];
    n_tmp_files++;
    return p;
}

static const char *write_bytes(const char *name, const void *data, size_t len)
{
    const char *path = tmp_path(name);
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(data, 1, len, fp) != len || fclose(fp) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
    return path;
}

static const char *write_text(const char *name, const char *text)
{
    return write_bytes(name, text, strlen(text));
}

static void cleanup_tmp(void)
{
    for (int k = 0; k < n_tmp_files; k++) unlink(tmp_files[k]);
    rmdir(tmp_dir);
}

/* New params from "key=value;key=value" (NULL or "-" = defaults). */
static grove_params *make_params(const char *spec)
{
    grove_params *p = NULL;
    if (grove_params_create(&p) != GROVE_OK) abort();
    if (!spec || !strcmp(spec, "-")) return p;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *save = NULL, *kv = strtok_r(buf, ";", &save); kv; kv = strtok_r(NULL, ";", &save))
        if (grove_params_set_pair(p, kv) != GROVE_OK) {
            fprintf(stderr, "bad test parameter '%s': %s\n", kv, grove_last_error());
            abort();
        }
    return p;
}

/* Loads `path`; checks the status is `want`; returns the dataset (NULL unless GROVE_OK). */
#define LOAD(path, spec, schema, want) load_((path), (spec), (schema), (want), __LINE__)
static grove_dataset *load_(const char *path, const char *spec, const grove_schema *schema,
                            grove_status want, int line)
{
    grove_params *p = make_params(spec);
    grove_dataset *d = (grove_dataset *)(uintptr_t)1;
    grove_status st = grove_dataset_load(path, p, schema, &d);
    grove_params_free(p);
    check_count_++;
    if (st != want) {
        check_failures_++;
        fprintf(stderr, "%s:%d: loading %s returned %s, wanted %s: %s\n", __FILE__, line, path,
                grove_status_str(st), grove_status_str(want), grove_last_error());
    }
    if (st != GROVE_OK) {
        CHECK(d == NULL);
        CHECK(grove_last_error()[0] != '\0');
        return NULL;
    }
    CHECK_STR(grove_last_error(), "");
    return d;
}

static float value_at(const grove_dataset *d, size_t feature, size_t row)
{
    return gv_value(d, feature, row);
}

static const char *category(const grove_dataset *d, size_t feature, size_t code)
{
    const gv_dict *c = &d->schema->categories[feature];
    return code < c->n ? c->names[code] : "(none)";
}

static size_t count_missing(const grove_dataset *d, size_t feature)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n_rows; i++) n += isnan(value_at(d, feature, i));
    return n;
}

static const char *example(const char *name)
{
    static char buf[8][512];
    static int k;
    char rel[256];
    snprintf(rel, sizeof rel, "examples/data/%s", name);
    k = (k + 1) % 8;
    return test_src_path(rel, buf[k], sizeof buf[k]);
}

/* ---- numbers ---- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* gv_parse_decimal must agree with strtod bit for bit, and reject what is not decimal. */
static void check_against_strtod(const char *s)
{
    size_t len = strlen(s);
    double fast = 0;
    int r = gv_parse_decimal(s, len, &fast);
    char *end;
    errno = 0;
    double ref = strtod(s, &end);
    int overflow = errno == ERANGE && isinf(ref);
    check_count_++;
    if (overflow) {
        if (r != GV_NUM_RANGE) CHECK_FAIL_("\"%s\": status %d, wanted range error", s, r);
    } else if (r != GV_NUM_OK || memcmp(&fast, &ref, sizeof ref) != 0) {
        CHECK_FAIL_("\"%s\": status %d, %.17g vs strtod %.17g", s, r, fast, ref);
    }
}

/* RFC 8259's number grammar, the plain way (the reference for gv_scan_json_number). */
static int json_grammar(const char *s)
{
    if (*s == '-') s++;
    if (*s == '0')
        s++;
    else if (*s >= '1' && *s <= '9')
        while (*s >= '0' && *s <= '9') s++;
    else
        return 0;
    if (*s == '.') {
        if (!(*++s >= '0' && *s <= '9')) return 0;
        while (*s >= '0' && *s <= '9') s++;
    }
    if (*s == 'e' || *s == 'E') {
        if (*++s == '+' || *s == '-') s++;
        if (!(*s >= '0' && *s <= '9')) return 0;
        while (*s >= '0' && *s <= '9') s++;
    }
    return *s == '\0';
}

/* gv_scan_json_number accepts only JSON numbers, with strtod's value, ending at a space or the
 * end; and it takes the 17-digit reals of model files. */
static size_t json_scan_accepted_;
static void check_json_scan(const char *s)
{
    size_t len = strlen(s);
    double v = 0;
    const char *end = gv_scan_json_number(s, s + len, &v);
    check_count_++;
    if (!end) return;
    json_scan_accepted_++;
    double ref = strtod(s, NULL);
    if (end != s + len || !json_grammar(s) || memcmp(&v, &ref, sizeof v) != 0)
        CHECK_FAIL_("\"%s\": gv_scan_json_number accepted it wrongly (%.17g)", s, v);
    char buf[160];
    snprintf(buf, sizeof buf, "%s 1", s); /* a space ends it */
    if (gv_scan_json_number(buf, buf + len + 2, &v) != buf + len) CHECK_FAIL_("\"%s 1\"", s);
}

static void test_numbers(void)
{
    static const char *good[] = {
        "0", "-0", "+0", "0.0", "1", "-1", "+1", ".5", "5.", "-.5e-3", "1e22", "1e23",
        "9007199254740992", "9007199254740993", "9007199254740995", "18446744073709551615",
        "18446744073709551616", "0.1", "0.30000000000000004", "123456789012345678901234567890",
        "1.7976931348623157e308", "2.2250738585072014e-308", "4.9e-324", "2.4703282292062328e-324",
        "1e-400", "0.000000000000000000000000000001", "1E5", "1e+05", "00012.5000",
        "0.869293", "-1.635630", "3.14159265358979323846264338327950288",
        ("0.00000000000000000000000000000000000000000000000000000000000000000000000000000000001"
         "234567890123456789012345678901234567890123456789012345678901234567890")};
    for (size_t k = 0; k < sizeof good / sizeof *good; k++) check_against_strtod(good[k]);
    check_against_strtod("1e309");
    check_against_strtod("-1e400");

    static const char *bad[] = {"",   ".",    "-",   "+",    "e5",  "1e",  "1e+", "0x10",
                                "inf", "nan", "NaN", " 1",  "1 ",  "--1", "1.2.3", "1,5",
                                "1e5.0", "abc", "1f",  "-.",  ".e1", "1d5"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        double v;
        CHECK_EQ_INT(gv_parse_decimal(bad[k], strlen(bad[k]), &v), GV_NUM_BAD);
    }
    double v;
    CHECK_EQ_INT(gv_parse_decimal("1e999", 5, &v), GV_NUM_RANGE);
    CHECK_EQ_INT(gv_parse_decimal("12345", 3, &v), GV_NUM_OK); /* only the first len bytes */
    CHECK_EQ_DBL(v, 123);

    /* random decimal strings of every shape, fast path and slow path alike */
    for (int t = 0; t < 300000; t++) {
        char s[128];
        size_t o = 0;
        uint64_t r = next_random();
        if (r & 1) s[o++] = (r & 2) ? '-' : '+';
        int n_int = (int)((r >> 2) % 22), n_frac = (int)((r >> 8) % 22);
        if (t % 3 == 0) n_int = (int)((r >> 2) % 8), n_frac = (int)((r >> 8) % 8); /* HIGGS-like */
        for (int k = 0; k < n_int; k++) s[o++] = (char)('0' + next_random() % 10);
        if (n_frac || !n_int) {
            s[o++] = '.';
            for (int k = 0; k < n_frac || (!n_int && k == 0); k++)
                s[o++] = (char)('0' + next_random() % 10);
        }
        if ((r >> 14) % 3 == 0) {
            s[o++] = (r >> 16) & 1 ? 'e' : 'E';
            if ((r >> 17) & 1) s[o++] = (r >> 18) & 1 ? '-' : '+';
            int e = (int)((r >> 20) % ((r >> 30) % 4 == 0 ? 340 : 30));
            o += (size_t)snprintf(s + o, sizeof s - o, "%d", e);
        }
        s[o] = '\0';
        check_against_strtod(s);
        check_json_scan(s);
        if (s[0] == '+') check_json_scan(s + 1);
    }
    /* exact doubles printed with 17 digits read back to themselves */
    for (int t = 0; t < 100000; t++) {
        uint64_t bits = next_random();
        double x;
        memcpy(&x, &bits, sizeof x);
        if (!isfinite(x)) continue;
        char s[40];
        snprintf(s, sizeof s, t & 1 ? "%.17g" : "%.9g", x);
        check_against_strtod(s);
    }
    /* 17 to 19 digits with exponents in gv_parse_decimal's extended path, and strings a hair
     * from the midpoint between two doubles (the cases that path leaves to strtod) */
    for (int t = 0; t < 200000; t++) {
        uint64_t r = next_random();
        double x = ldexp((double)(r >> 11) / 9007199254740992.0 + 0.5, (int)(next_random() % 140) - 70);
        if (r & 1) x = -x;
        long double mid = ((long double)x + (long double)nextafter(x, INFINITY)) / 2;
        char s[64];
        static const char *const fmt[] = {"%.17Lg", "%.18Lg", "%.19Lg", "%.16Lg"};
        snprintf(s, sizeof s, fmt[t % 4], t % 8 < 4 ? (long double)x : mid);
        check_against_strtod(s);
        check_json_scan(s);
    }
    size_t before = json_scan_accepted_;
    for (int t = 0; t < 1000; t++) { /* a model file's reals: nearly all taken */
        double x = ldexp((double)(next_random() >> 11), -60 + t % 40);
        char s[40];
        snprintf(s, sizeof s, "%.17g", x);
        check_json_scan(s);
    }
    CHECK(json_scan_accepted_ - before > 990);
    static const char *json_bad[] = {"+1", "01", "-", "1.", ".5", "1e", "1e+", "-01", "0x1", "1 ", "1.5e", "--1"};
    for (size_t k = 0; k < sizeof json_bad / sizeof *json_bad; k++) {
        double jv;
        const char *b = json_bad[k];
        const char *end = gv_scan_json_number(b, b + strlen(b), &jv);
        if (end && end != b + strlen(b) - 1) CHECK_FAIL_("\"%s\" taken as a JSON number", b);
    }

    CHECK(gv_is_missing_token("", 0));
    CHECK(gv_is_missing_token("NA", 2));
    CHECK(gv_is_missing_token("na", 2));
    CHECK(gv_is_missing_token("?", 1));
    CHECK(gv_is_missing_token("NaN", 3));
    CHECK(gv_is_missing_token("nAn", 3));
    CHECK(!gv_is_missing_token("N", 1));
    CHECK(!gv_is_missing_token("NAN0", 4));
    CHECK(!gv_is_missing_token("0", 1));
}

/* ---- the bundled example files ---- */

static void test_breast_cancer(void)
{
    grove_dataset *d = LOAD(example("breast_cancer_train.csv"), NULL, NULL, GROVE_OK);
    if (!d) return;
    const grove_schema *s = grove_dataset_schema(d);
    CHECK_EQ_INT(grove_dataset_n_rows(d), 398);
    CHECK_EQ_INT(grove_dataset_n_features(d), 30);
    CHECK_EQ_INT(grove_schema_task(s), GROVE_CLASSIFICATION);
    CHECK_EQ_INT(grove_schema_n_classes(s), 2);
    CHECK_STR(grove_schema_class_name(s, 0), "benign");
    CHECK_STR(grove_schema_class_name(s, 1), "malignant");
    CHECK_STR(grove_schema_label_name(s), "label");
    CHECK_STR(grove_schema_feature_name(s, 0), "mean_radius");
    CHECK(!grove_schema_is_categorical(s, 0));
    CHECK(grove_dataset_has_labels(d));
    CHECK_EQ_DBL(grove_dataset_label(d, 0), 1);
    CHECK_EQ_DBL(value_at(d, 0, 0), 17.99f);
    CHECK_EQ_DBL(value_at(d, 29, 397), 0.07039f);
    CHECK_STR(grove_dataset_warning(d), "");
    CHECK(d->weights == NULL);
    grove_dataset_free(d);
}

static void test_house_votes(void)
{
    grove_dataset *d = LOAD(example("house_votes84_train.csv"), NULL, NULL, GROVE_OK);
    if (!d) return;
    const grove_schema *s = d->schema;
    CHECK_EQ_INT(d->n_rows, 305);
    CHECK_EQ_INT(s->n_features, 16);
    size_t total_missing = 0;
    for (size_t f = 0; f < 16; f++) {
        CHECK(s->is_categorical[f]);
        CHECK_EQ_INT(s->categories[f].n, 2);
        CHECK_STR(category(d, f, 0), "n");
        CHECK_STR(category(d, f, 1), "y");
        total_missing += count_missing(d, f);
    }
    CHECK_EQ_INT(total_missing, 286);
    CHECK_EQ_INT(count_missing(d, 0), 10);
    CHECK_EQ_INT(count_missing(d, 1), 38);
    CHECK_EQ_DBL(value_at(d, 0, 0), 0);  /* n */
    CHECK_EQ_DBL(value_at(d, 1, 0), 1);  /* y */
    CHECK(isnan(value_at(d, 10, 0)));    /* empty */
    CHECK_STR(grove_schema_class_name(s, 0), "democrat");
    CHECK_STR(grove_schema_class_name(s, 1), "republican");
    CHECK_EQ_DBL(grove_dataset_label(d, 0), 1);
    grove_dataset_free(d);
}

static void test_penguins(void)
{
    grove_dataset *d = LOAD(example("penguins_train.csv"), NULL, NULL, GROVE_OK);
    if (!d) return;
    const grove_schema *s = d->schema;
    CHECK_EQ_INT(d->n_rows, 241);
    CHECK_EQ_INT(s->n_features, 7);
    static const int cat[7] = {1, 0, 0, 0, 0, 1, 0};
    for (size_t f = 0; f < 7; f++) CHECK_EQ_INT(s->is_categorical[f], cat[f]);
    CHECK_EQ_INT(s->categories[0].n, 3);
    CHECK_STR(category(d, 0, 0), "Biscoe");
    CHECK_STR(category(d, 0, 2), "Torgersen");
    CHECK_EQ_INT(s->categories[5].n, 2);
    CHECK_STR(category(d, 5, 0), "female");
    CHECK_EQ_INT(count_missing(d, 1), 2);
    CHECK_EQ_INT(count_missing(d, 5), 8);
    CHECK_EQ_INT(count_missing(d, 6), 0);
    CHECK_EQ_DBL(value_at(d, 0, 3), 2);      /* Torgersen */
    CHECK_EQ_DBL(value_at(d, 1, 3), 36.7f);
    CHECK_EQ_DBL(value_at(d, 5, 3), 0);      /* female */
    CHECK_EQ_DBL(value_at(d, 6, 3), 2007);
    CHECK_EQ_INT(grove_schema_n_classes(s), 3);
    CHECK_STR(grove_schema_class_name(s, 2), "Gentoo");
    grove_dataset_free(d);
}

static void test_diabetes(void)
{
    grove_dataset *d = LOAD(example("diabetes_train.csv"), NULL, NULL, GROVE_OK);
    if (!d) return;
    CHECK_EQ_INT(d->n_rows, 309);
    CHECK_EQ_INT(d->schema->n_features, 10);
    CHECK_EQ_INT(grove_schema_task(d->schema), GROVE_REGRESSION);
    CHECK_EQ_INT(grove_schema_n_classes(d->schema), 0);
    CHECK(grove_schema_class_name(d->schema, 0) == NULL);
    CHECK_EQ_DBL(grove_dataset_label(d, 0), 151);
    CHECK_EQ_DBL(value_at(d, 3, 0), 101);
    grove_dataset_free(d);
    /* forced classification: 181 numeric classes, ordered by value */
    d = LOAD(example("diabetes_train.csv"), "task=classification", NULL, GROVE_OK);
    if (!d) return;
    CHECK_EQ_INT(grove_schema_n_classes(d->schema), 181);
    double prev = -1;
    for (size_t c = 0; c < 181; c++) {
        double x = atof(grove_schema_class_name(d->schema, c));
        CHECK(x > prev);
        prev = x;
    }
    CHECK_STR(grove_schema_class_name(d->schema, (size_t)grove_dataset_label(d, 0)), "151");
    grove_dataset_free(d);
}

static void test_libsvm_examples(void)
{
    grove_dataset *d = LOAD(example("iris.libsvm"), NULL, NULL, GROVE_OK);
    if (d) {
        CHECK_EQ_INT(d->n_rows, 150);
        CHECK_EQ_INT(d->schema->n_features, 4);
        CHECK_STR(grove_schema_feature_name(d->schema, 0), "f1");
        CHECK_STR(grove_schema_feature_name(d->schema, 3), "f4");
        CHECK_EQ_INT(grove_schema_n_classes(d->schema), 3);
        CHECK_STR(grove_schema_class_name(d->schema, 2), "2");
        CHECK_EQ_DBL(value_at(d, 0, 0), 5.1f);
        CHECK_EQ_DBL(grove_dataset_label(d, 149), 2);
        grove_dataset_free(d);
    }
    d = LOAD(example("agaricus.txt.train"), NULL, NULL, GROVE_OK);
    grove_dataset *m = LOAD(example("agaricus.txt.train"), "libsvm_absent=missing", NULL, GROVE_OK);
    if (d && m) {
        CHECK_EQ_INT(d->n_rows, 6513);
        CHECK_EQ_INT(d->schema->n_features, 126);
        CHECK_EQ_INT(grove_schema_n_classes(d->schema), 2);
        CHECK_EQ_DBL(grove_dataset_label(d, 0), 1);
        CHECK_EQ_DBL(value_at(d, 2, 0), 1);  /* 3:1 */
        CHECK_EQ_DBL(value_at(d, 0, 0), 0);  /* absent */
        CHECK(isnan(value_at(m, 0, 0)));
        CHECK_EQ_DBL(value_at(m, 2, 0), 1);
        size_t present = 0;
        for (size_t k = 0; k < d->n_rows * 126; k++) present += !isnan(m->values[k]);
        CHECK_EQ_INT(present, 6513 * 22); /* every agaricus row has 22 pairs */
        /* the test file follows the training schema */
        grove_dataset *t = LOAD(example("agaricus.txt.test"), NULL, d->schema, GROVE_OK);
        if (t) {
            CHECK(gv_schema_equal(t->schema, d->schema));
            CHECK_EQ_INT(t->n_rows, 1611);
            grove_dataset_free(t);
        }
    }
    grove_dataset_free(d);
    grove_dataset_free(m);
}

/* ---- CSV syntax ---- */

/* Numeric fields the tokenizer reads in line (1 to 9 digits, nothing else) and their
 * neighbours that take the general path: the same values as strtod's, blanks and signs
 * included. */
static void test_csv_small_ints(void)
{
    static const char *const tokens[] = {
        "0",        "7",          "007",        "255",        "123456789", "999999999",
        "000000000", "0000000001", "1234567890", "4294967295", "4294967296", "99999999999999999999",
        " 12",      "12 ",        " 12 ",       "+3",         "-3",        "3.0",
        "1e2",      "12.",        ".5",         "-0",         "00",        "8\t"};
    const size_t n = sizeof tokens / sizeof *tokens;
    gv_buf t = {0};
    CHECK(gv_buf_printf(&t, "x,y,label\n") == 0);
    for (size_t i = 0; i < n; i++) CHECK(gv_buf_printf(&t, "%s,%s,%zu\n", tokens[i], tokens[n - 1 - i], i % 2) == 0);
    grove_dataset *d = LOAD(write_text("small_ints.csv", t.data), NULL, NULL, GROVE_OK);
    gv_buf_free(&t);
    if (!d) return;
    CHECK_EQ_INT(d->n_rows, n);
    CHECK(!d->schema->is_categorical[0] && !d->schema->is_categorical[1]);
    for (size_t i = 0; i < n; i++) {
        float want0 = (float)strtod(tokens[i], NULL), want1 = (float)strtod(tokens[n - 1 - i], NULL);
        CHECK(memcmp(&(float){value_at(d, 0, i)}, &want0, sizeof want0) == 0);
        CHECK(memcmp(&(float){value_at(d, 1, i)}, &want1, sizeof want1) == 0);
        CHECK_EQ_DBL(d->labels[i], (double)(i % 2));
    }
    grove_dataset_free(d);
}

static void test_csv_syntax(void)
{
    const char *text = "\xEF\xBB\xBF\"name, with comma\",plain,label\r\n"
                       "\"a \"\"quoted\"\" value\",1.5,yes\r\n"
                       "\"multi\nline\",  2.5 ,no\r\n"
                       "  \"padded\"  ,NA,yes\r\n"
                       "\r\n"
                       "x, ? ,\"no\"";
    grove_dataset *d = LOAD(write_text("syntax.csv", text), NULL, NULL, GROVE_OK);
    if (!d) return;
    CHECK_EQ_INT(d->n_rows, 4);
    CHECK_EQ_INT(d->schema->n_features, 2);
    CHECK_STR(d->schema->feature_names[0], "name, with comma");
    CHECK_STR(d->schema->feature_names[1], "plain");
    CHECK(d->schema->is_categorical[0]);
    CHECK(!d->schema->is_categorical[1]);
    CHECK_EQ_INT(d->schema->categories[0].n, 4);
    CHECK_STR(category(d, 0, 0), "a \"quoted\" value");
    CHECK_STR(category(d, 0, 1), "multi\nline");
    CHECK_STR(category(d, 0, 2), "padded");
    CHECK_STR(category(d, 0, 3), "x");
    for (size_t i = 0; i < 4; i++) CHECK_EQ_DBL(value_at(d, 0, i), (double)i);
    CHECK_EQ_DBL(value_at(d, 1, 0), 1.5);
    CHECK_EQ_DBL(value_at(d, 1, 1), 2.5);
    CHECK(isnan(value_at(d, 1, 2)));
    CHECK(isnan(value_at(d, 1, 3)));
    CHECK_STR(grove_schema_class_name(d->schema, 0), "no");
    CHECK_EQ_DBL(d->labels[0], 1);
    CHECK_EQ_DBL(d->labels[1], 0);
    CHECK_EQ_DBL(d->labels[3], 0);
    grove_dataset_free(d);

    /* missing tokens, quoted or not, and a quoted number */
    d = LOAD(write_text("missing.csv", "label,x\n1,NA\n2,na\n1,?\n2,nan\n1,NaN\n2,\"\"\n1,\n"
                                       "2, NA \n1,\"7\"\n"),
             NULL, NULL, GROVE_OK);
    if (d) {
        CHECK(!d->schema->is_categorical[0]);
        CHECK_EQ_INT(count_missing(d, 0), 8);
        CHECK_EQ_DBL(value_at(d, 0, 8), 7);
        grove_dataset_free(d);
    }
    /* rows do not need a final newline; LF-only works */
    d = LOAD(write_text("nofinal.csv", "x,label\n1,0\n2,1"), NULL, NULL, GROVE_OK);
    if (d) {
        CHECK_EQ_INT(d->n_rows, 2);
        CHECK_EQ_DBL(value_at(d, 0, 1), 2);
        grove_dataset_free(d);
    }
    /* an unnamed column gets a name from its position */
    d = LOAD(write_text("unnamed.csv", ",x,label\n0,1,0\n1,2,1\n"), NULL, NULL, GROVE_OK);
    if (d) {
        CHECK_STR(d->schema->feature_names[0], "column_1");
        grove_dataset_free(d);
    }
}

static void test_category_order(void)
{
    grove_dataset *a = LOAD(write_text("order_a.csv", "c,label\npear,0\napple,1\nfig,0\n"
                                                      "Zebra,1\n"),
                            NULL, NULL, GROVE_OK);
    grove_dataset *b = LOAD(write_text("order_b.csv", "c,label\nfig,0\nZebra,1\npear,0\n"
                                                      "apple,1\n"),
                            NULL, NULL, GROVE_OK);
    if (a && b) {
        CHECK(gv_schema_equal(a->schema, b->schema));
        static const char *order[] = {"Zebra", "apple", "fig", "pear"}; /* byte order */
        for (size_t k = 0; k < 4; k++) CHECK_STR(category(a, 0, k), order[k]);
        CHECK_EQ_DBL(value_at(a, 0, 0), 3);
        CHECK_EQ_DBL(value_at(b, 0, 0), 2);
    }
    grove_dataset_free(a);
    grove_dataset_free(b);
}

/* Loads "label,x" rows with the given labels; returns the dataset. */
static grove_dataset *labels_file(const char *name, const char *labels, const char *spec,
                                  grove_status want)
{
    char text[4096] = "label,x\n";
    size_t o = strlen(text);
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", labels);
    int i = 0;
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
        o += (size_t)snprintf(text + o, sizeof text - o, "%s,%d\n", t, i++);
    return LOAD(write_text(name, text), spec, NULL, want);
}

static void check_classes(grove_dataset *d, const char *names, const char *indices)
{
    if (!d) return;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", names);
    size_t c = 0;
    CHECK_EQ_INT(grove_schema_task(d->schema), GROVE_CLASSIFICATION);
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
        CHECK_STR(grove_schema_class_name(d->schema, c++), t);
    CHECK_EQ_INT(grove_schema_n_classes(d->schema), c);
    for (size_t i = 0; indices[i]; i++) CHECK_EQ_DBL(d->labels[i], indices[i] - '0');
    grove_dataset_free(d);
}

static void test_task_inference(void)
{
    check_classes(labels_file("t1.csv", "3 1 2 1", NULL, GROVE_OK), "1 2 3", "2010");
    check_classes(labels_file("t2.csv", "10 9 2", NULL, GROVE_OK), "2 9 10", "210");
    check_classes(labels_file("t3.csv", "1.0 2 +1 2e0", NULL, GROVE_OK), "1 2", "0101");
    check_classes(labels_file("t4.csv", "-1 1 -1", NULL, GROVE_OK), "-1 1", "010");
    check_classes(labels_file("t5.csv", "b 1 a 10", NULL, GROVE_OK), "1 10 a b", "3021");
    check_classes(labels_file("t6.csv", "0.5 1.5 0.5", "task=classification", GROVE_OK),
                  "0.5 1.5", "010");
    check_classes(labels_file("t7.csv", "\"x,y\" \"x\"", NULL, GROVE_OK), "x x,y", "10");
    grove_dataset *d = labels_file("t8.csv", "0.5 1.5", NULL, GROVE_OK);
    if (d) {
        CHECK_EQ_INT(grove_schema_task(d->schema), GROVE_REGRESSION);
        CHECK_EQ_DBL(d->labels[1], 1.5);
        grove_dataset_free(d);
    }
    d = labels_file("t9.csv", "1 2 3", "task=regression", GROVE_OK);
    if (d) {
        CHECK_EQ_INT(grove_schema_task(d->schema), GROVE_REGRESSION);
        CHECK_EQ_DBL(d->labels[2], 3);
        grove_dataset_free(d);
    }
    /* 50 distinct integers: classes; 51: regression */
    char many[1024] = "";
    size_t o = 0;
    for (int k = 0; k < 51; k++) o += (size_t)snprintf(many + o, sizeof many - o, "%d ", k * 3);
    d = labels_file("t10.csv", many, NULL, GROVE_OK);
    if (d) {
        CHECK_EQ_INT(grove_schema_task(d->schema), GROVE_REGRESSION);
        grove_dataset_free(d);
    }
    many[o - 4] = '\0'; /* drop "150 " */
    d = labels_file("t11.csv", many, NULL, GROVE_OK);
    if (d) {
        CHECK_EQ_INT(grove_schema_n_classes(d->schema), 50);
        CHECK_STR(grove_schema_class_name(d->schema, 49), "147");
        grove_dataset_free(d);
    }
    /* one class is not an error here (training decides) */
    check_classes(labels_file("t12.csv", "7 7", NULL, GROVE_OK), "7", "00");
}

static void test_columns(void)
{
    const char *path = write_text("columns.csv", "id,a,y,w,c\n"
                                                 "1,0.5,yes,2,10\n"
                                                 "2,1.5,no,0,9\n"
                                                 "3,2.5,yes,0.25,2\n");
    grove_dataset *d = LOAD(path, "label=y;weight=w;ignore=id;categorical=c", NULL, GROVE_OK);
    if (d) {
        CHECK_EQ_INT(d->schema->n_features, 2);
        CHECK_STR(d->schema->feature_names[0], "a");
        CHECK_STR(d->schema->feature_names[1], "c");
        CHECK_STR(d->schema->label_name, "y");
        CHECK(d->schema->is_categorical[1]);
        CHECK_STR(category(d, 1, 0), "10"); /* categories in byte order */
        CHECK_STR(category(d, 1, 1), "2");
        CHECK_STR(category(d, 1, 2), "9");
        CHECK_EQ_DBL(value_at(d, 1, 1), 2);
        CHECK(d->weights != NULL);
        if (d->weights) {
            CHECK_EQ_DBL(d->weights[0], 2);
            CHECK_EQ_DBL(d->weights[1], 0);
            CHECK_EQ_DBL(d->weights[2], 0.25);
        }
        grove_dataset_free(d);
    }
    /* by index, with blanks in the lists */
    d = LOAD(path, "label=2;weight=3;ignore= 0 , 4 ", NULL, GROVE_OK);
    if (d) {
        CHECK_EQ_INT(d->schema->n_features, 1);
        CHECK_STR(d->schema->feature_names[0], "a");
        CHECK_STR(d->schema->label_name, "y");
        grove_dataset_free(d);
    }
    /* no column named "label": the first column is the label */
    d = LOAD(path, NULL, NULL, GROVE_OK);
    if (d) {
        CHECK_STR(d->schema->label_name, "id");
        CHECK_EQ_INT(d->schema->n_features, 4);
        grove_dataset_free(d);
    }
}

/* ---- loading with a schema ---- */

static void test_follow_schema(void)
{
    grove_dataset *train = LOAD(write_text("train.csv", "label,color,size,shape\n"
                                                        "a,red,1,round\n"
                                                        "b,green,2,square\n"
                                                        "a,red,3,round\n"),
                                NULL, NULL, GROVE_OK);
    if (!train) return;
    const grove_schema *s = train->schema;
    grove_dataset *t = LOAD(write_text("test.csv", "extra,size,shape,color\n"
                                                   "1,5,round,mauve\n"
                                                   "2,6,square,red\n"
                                                   "3,7,triangle,blue\n"),
                            NULL, s, GROVE_OK);
    if (t) {
        CHECK(!grove_dataset_has_labels(t));
        CHECK(isnan(grove_dataset_label(t, 0)));
        CHECK(gv_schema_equal(t->schema, s));
        CHECK(t->schema != s);
        CHECK(isnan(value_at(t, 0, 0)));   /* mauve */
        CHECK_EQ_DBL(value_at(t, 0, 1), 1); /* red */
        CHECK(isnan(value_at(t, 0, 2)));   /* blue */
        CHECK_EQ_DBL(value_at(t, 1, 2), 7);
        CHECK_EQ_DBL(value_at(t, 2, 1), 1); /* square */
        CHECK(isnan(value_at(t, 2, 2)));   /* triangle */
        CHECK_CONTAINS(grove_dataset_warning(t), "test.csv: 3 values of unseen categories treated "
                                                 "as missing (first: column 'color' line 2: "
                                                 "\"mauve\")");
        grove_dataset_free(t);
    }
    t = LOAD(write_text("test_labels.csv", "color,size,shape,label\nred,1,round,b\n"
                                           "green,2,round,a\n"),
             NULL, s, GROVE_OK);
    if (t) {
        CHECK_EQ_DBL(t->labels[0], 1);
        CHECK_EQ_DBL(t->labels[1], 0);
        CHECK_STR(grove_dataset_warning(t), "");
        grove_dataset_free(t);
    }
    /* with a schema the label is optional, value by value: an unknown class, a missing label
     * or text for a regression target leaves the data label-less, with a note */
    t = LOAD(write_text("test_class.csv", "color,size,shape,label\nred,1,round,b\ngreen,2,round,c\n"),
             NULL, s, GROVE_OK);
    if (t) {
        CHECK(t->labels == NULL);
        CHECK_CONTAINS(grove_dataset_warning(t),
                       "test_class.csv: the label column 'label' is ignored: 1 row without "
                       "a usable label (first: line 3: \"c\")");
        /* the rows that do have a usable label stay within reach, for evaluation */
        grove_dataset *l = NULL;
        size_t skipped = 9;
        CHECK_OK(grove_dataset_labelled_rows(t, &l, &skipped));
        CHECK_EQ_INT((long long)skipped, 1);
        if (l) {
            CHECK_EQ_INT((long long)grove_dataset_n_rows(l), 1);
            CHECK(grove_dataset_has_labels(l));
            CHECK_EQ_DBL(grove_dataset_label(l, 0), 1);
            grove_dataset_free(l);
        }
        grove_dataset_free(t);
    }
    LOAD(write_text("test_num.csv", "color,size,shape\nred,big,round\n"), NULL, s,
         GROVE_ERR_PARSE);
    CHECK_CONTAINS(grove_last_error(),
                   "test_num.csv:2:2: expected a number for feature 'size', found \"big\"");
    LOAD(write_text("test_nocol.csv", "color,size\nred,1\n"), NULL, s, GROVE_ERR_DATA);
    CHECK_CONTAINS(grove_last_error(),
                   "test_nocol.csv:1: expected a column for feature 'shape', found none");
    t = LOAD(write_text("test_misslabel.csv", "color,size,shape,label\nred,1,round,\nred,1,round,?\n"),
             NULL, s, GROVE_OK);
    if (t) {
        CHECK(t->labels == NULL);
        CHECK_CONTAINS(grove_dataset_warning(t), "2 rows without a usable label (first: line 2: "
                                                 "an empty field)");
        grove_dataset_free(t);
    }
    grove_dataset_free(train);

    /* numeric classes match by value; regression targets must be numbers */
    train = LOAD(write_text("num_train.csv", "label,x\n1,0\n2,1\n"), NULL, NULL, GROVE_OK);
    if (train) {
        t = LOAD(write_text("num_test.csv", "x,label\n5,2.0\n6,+1\n"), NULL, train->schema,
                 GROVE_OK);
        if (t) {
            CHECK_EQ_DBL(t->labels[0], 1);
            CHECK_EQ_DBL(t->labels[1], 0);
            grove_dataset_free(t);
        }
        grove_dataset_free(train);
    }
    train = LOAD(write_text("reg_train.csv", "label,x\n1.5,0\n2.5,1\n"), NULL, NULL, GROVE_OK);
    if (train) {
        t = LOAD(write_text("reg_test.csv", "x,label\n5,2.0\n6,many\n"), NULL, train->schema,
                 GROVE_OK);
        if (t) {
            CHECK(t->labels == NULL);
            CHECK_CONTAINS(grove_dataset_warning(t), "(first: line 3: \"many\")");
            grove_dataset_free(t);
        }
        grove_dataset_free(train);
    }
}

/* ---- gzip ---- */

static void test_gzip(void)
{
    const char *text = "label,x,c\n1,0.5,a\n0,1.5,b\n1,,a\n";
    const char *plain = write_text("plain.csv", text);
    const char *names[] = {"zipped.csv.gz", "zipped_named_plain.csv"};
    grove_dataset *p = LOAD(plain, NULL, NULL, GROVE_OK);
    for (int k = 0; k < 2; k++) {
        const char *path = tmp_path(names[k]);
        gzFile gz = gzopen(path, "wb");
        CHECK(gz != NULL);
        if (!gz) continue;
        gzwrite(gz, text, (unsigned)strlen(text));
        gzclose(gz);
        grove_dataset *z = LOAD(path, NULL, NULL, GROVE_OK);
        if (z && p) {
            CHECK(gv_schema_equal(z->schema, p->schema));
            CHECK_EQ_INT(z->n_rows, 3);
            CHECK(!memcmp(z->values, p->values, 6 * sizeof(float)));
            CHECK(!memcmp(z->labels, p->labels, 3 * sizeof(double)));
        }
        grove_dataset_free(z);
    }
    grove_dataset_free(p);
    /* gzip LIBSVM, detected by extension under the .gz */
    const char *path = tmp_path("small.libsvm.gz");
    gzFile gz = gzopen(path, "wb");
    if (gz) {
        gzputs(gz, "1 1:2 3:4\n0 2:1\n");
        gzclose(gz);
        grove_dataset *z = LOAD(path, NULL, NULL, GROVE_OK);
        if (z) {
            CHECK_EQ_INT(z->schema->n_features, 3);
            CHECK_EQ_DBL(value_at(z, 2, 0), 4);
            grove_dataset_free(z);
        }
    }
}

/* ---- LIBSVM ---- */

static void test_libsvm(void)
{
    const char *text = "# a comment line\n"
                       "1 qid:3 1:0.5 3:-2 # trailing comment\r\n"
                       "0\t2:1e3\n"
                       "\n"
                       "   \n"
                       "-1 1:NA 4:7\n";
    const char *path = write_text("small.libsvm", text);
    grove_dataset *z = LOAD(path, NULL, NULL, GROVE_OK);
    grove_dataset *m = LOAD(path, "libsvm_absent=missing", NULL, GROVE_OK);
    if (z && m) {
        CHECK_EQ_INT(z->n_rows, 3);
        CHECK_EQ_INT(z->schema->n_features, 4);
        static const float want_zero[3][4] = {{0.5f, 0, -2, 0}, {0, 1000, 0, 0}, {NAN, 0, 0, 7}};
        for (size_t i = 0; i < 3; i++)
            for (size_t f = 0; f < 4; f++) {
                CHECK_EQ_DBL(value_at(z, f, i), want_zero[i][f]);
                float want_m = want_zero[i][f] == 0 ? NAN : want_zero[i][f];
                CHECK_EQ_DBL(value_at(m, f, i), want_m);
            }
        CHECK_STR(grove_schema_class_name(z->schema, 0), "-1");
        CHECK_EQ_DBL(z->labels[0], 2);
        CHECK_EQ_DBL(z->labels[1], 1);
        CHECK_EQ_DBL(z->labels[2], 0);
        CHECK_STR(z->schema->label_name, "label");
    }
    /* following a 2-feature schema: indices 3 and 4 are ignored and counted */
    grove_dataset *two = LOAD(write_text("two.libsvm", "1 1:1 2:2\n-1 2:1\n0 1:3\n"), NULL, NULL,
                              GROVE_OK);
    if (two) {
        grove_dataset *f = LOAD(path, NULL, two->schema, GROVE_OK);
        if (f) {
            CHECK_EQ_INT(f->schema->n_features, 2);
            CHECK_EQ_DBL(value_at(f, 0, 0), 0.5f);
            CHECK_EQ_DBL(f->labels[0], 2);
            CHECK_CONTAINS(grove_dataset_warning(f), "small.libsvm: 2 values of features beyond "
                                                     "the schema's 2 ignored (first: line 2, "
                                                     "index 3)");
            grove_dataset_free(f);
        }
        /* an unknown class, following a schema: no labels, and a note */
        grove_dataset *u = LOAD(write_text("unknown_class.libsvm", "1 1:1\n5 2:1\n"), NULL,
                                two->schema, GROVE_OK);
        if (u) {
            CHECK(u->labels == NULL);
            CHECK_CONTAINS(grove_dataset_warning(u), "unknown_class.libsvm: the labels are "
                                                     "ignored: 1 row without a usable label "
                                                     "(first: line 2: \"5\")");
            grove_dataset_free(u);
        }
        grove_dataset_free(two);
    }
    grove_dataset *one = LOAD(write_text("one.libsvm", "1 1:1\n0 1:2\n"), NULL, NULL, GROVE_OK);
    if (one) {
        grove_dataset *f = LOAD(path, NULL, one->schema, GROVE_OK); /* class -1 unknown */
        if (f) {
            CHECK(f->labels == NULL);
            CHECK_CONTAINS(grove_dataset_warning(f), "(first: line 6: \"-1\")");
        }
        grove_dataset_free(f);
        f = LOAD(write_text("beyond.libsvm", "1 1:1 2:5 9:1\n0 3:2\n"), NULL, one->schema,
                 GROVE_OK);
        if (f) {
            CHECK_STR(grove_dataset_warning(f) + strlen(tmp_dir) + 1,
                      "beyond.libsvm: 3 values of features beyond the schema's 1 ignored (first: "
                      "line 1, index 2)");
            grove_dataset_free(f);
        }
        grove_dataset_free(one);
    }
    grove_dataset_free(z);
    grove_dataset_free(m);
}

/* Query groups: LIBSVM qid:n, CSV parameter "group"; rows of a query must be contiguous. */
static void test_queries(void)
{
    grove_dataset *d = LOAD(write_text("q.libsvm", "2 qid:7 1:1\n0 qid:7 1:2\n1 qid:3 2:1\n"
                                                   "0 qid:9 1:1\n1 qid:9 2:2\n"),
                            NULL, NULL, GROVE_OK);
    if (d) {
        CHECK_EQ_INT(grove_dataset_n_queries(d), 3);
        static const size_t want[4] = {0, 2, 3, 5};
        for (size_t q = 0; q < 4; q++) CHECK_EQ_INT(grove_dataset_query_start(d, q), want[q]);
        CHECK_EQ_INT(grove_dataset_query_start(d, 9), 5);
    }
    grove_dataset_free(d);
    LOAD(write_text("qbad.libsvm", "1 qid:1 1:1\n0 qid:2 1:1\n1 qid:1 1:2\n"), NULL, NULL,
         GROVE_ERR_DATA);
    CHECK_CONTAINS(grove_last_error(), "qbad.libsvm:3: qid:1 comes back after rows of other "
                                       "queries");
    LOAD(write_text("qnum.libsvm", "1 qid:x 1:1\n"), NULL, NULL, GROVE_ERR_PARSE);
    CHECK_CONTAINS(grove_last_error(), "qnum.libsvm:1:2: expected qid:n with an integer n");
    d = LOAD(write_text("qsome.libsvm", "1 qid:1 1:1\n0 1:1\n"), NULL, NULL, GROVE_OK);
    if (d) {
        CHECK_EQ_INT(grove_dataset_n_queries(d), 0);
        CHECK_CONTAINS(grove_dataset_warning(d), "qid:n tokens ignored (no query groups): line 2");
    }
    grove_dataset_free(d);
    d = LOAD(write_text("q.csv", "y,q,x\n1,5,0.5\n0,5,1\n2,6,3\n"), "label=y;group=q", NULL,
             GROVE_OK);
    if (d) {
        CHECK_EQ_INT(grove_dataset_n_queries(d), 2);
        CHECK_EQ_INT(grove_dataset_query_start(d, 1), 2);
        CHECK_EQ_INT(d->schema->n_features, 1);
    }
    grove_dataset_free(d);
    LOAD(write_text("qbad.csv", "y,q,x\n1,5,0.5\n0,6,1\n2,5,3\n"), "label=y;group=q", NULL,
         GROVE_ERR_DATA);
    CHECK_CONTAINS(grove_last_error(), "qbad.csv:4: query 5 of column 'q' comes back");
    LOAD(write_text("qtext.csv", "y,q,x\n1,a,0.5\n"), "label=y;group=q", NULL, GROVE_ERR_PARSE);
    CHECK_CONTAINS(grove_last_error(), "expected an integer query id in the group column 'q'");
}

static void test_format_detection(void)
{
    const char *svm = "1 1:2 2:3\n0 1:1\n";
    const char *csv = "label,x\n1,2\n0,3\n";
    grove_dataset *d = LOAD(write_text("a.txt", svm), NULL, NULL, GROVE_OK);
    if (d) {
        CHECK_EQ_INT(d->schema->n_features, 2);
        grove_dataset_free(d);
    }
    d = LOAD(write_text("b.txt", csv), NULL, NULL, GROVE_OK); /* a comma: CSV */
    if (d) {
        CHECK_STR(d->schema->feature_names[0], "x");
        grove_dataset_free(d);
    }
    d = LOAD(write_text("c.data", svm), NULL, NULL, GROVE_OK); /* by content */
    if (d) {
        CHECK_STR(d->schema->feature_names[1], "f2");
        grove_dataset_free(d);
    }
    d = LOAD(write_text("d.data", csv), NULL, NULL, GROVE_OK);
    if (d) {
        CHECK_STR(d->schema->feature_names[0], "x");
        grove_dataset_free(d);
    }
    d = LOAD(write_text("e.csv", svm), "format=libsvm", NULL, GROVE_OK); /* the parameter wins */
    if (d) {
        CHECK_EQ_INT(d->schema->n_features, 2);
        grove_dataset_free(d);
    }
    LOAD(write_text("f.libsvm", csv), "format=auto", NULL, GROVE_ERR_PARSE);
    CHECK_CONTAINS(grove_last_error(), "f.libsvm:1:1: expected a numeric label, found \"label,x\"");
}

/* ---- arrays ---- */

static void test_arrays(void)
{
    const double x64[3 * 2] = {1, 2, NAN, -999, 5.5, 6};
    const float x32[3 * 2] = {1, 2, NAN, -999, 5.5f, 6};
    const double y[3] = {1, 2, 1}, w[3] = {1, 0, 2.5}, marker = -999;
    grove_dataset *a = NULL, *b = NULL;
    CHECK_OK(grove_dataset_from_array(x64, GROVE_FLOAT64, 3, 2, y, w, &marker, NULL, NULL, &a));
    CHECK_OK(grove_dataset_from_array(x32, GROVE_FLOAT32, 3, 2, y, NULL, NULL, NULL, NULL, &b));
    if (a && b) {
        CHECK_STR(grove_schema_feature_name(a->schema, 1), "f1");
        CHECK_EQ_DBL(value_at(a, 0, 0), 1);
        CHECK_EQ_DBL(value_at(a, 1, 0), 2);
        CHECK(isnan(value_at(a, 0, 1)));
        CHECK(isnan(value_at(a, 1, 1))); /* the marker */
        CHECK_EQ_DBL(value_at(b, 1, 1), -999);
        CHECK_EQ_DBL(value_at(a, 0, 2), 5.5);
        CHECK_EQ_INT(grove_schema_n_classes(a->schema), 2);
        CHECK_STR(grove_schema_class_name(a->schema, 1), "2");
        CHECK_EQ_DBL(grove_dataset_label(a, 1), 1);
        CHECK_EQ_DBL(a->weights[2], 2.5);
        CHECK(b->weights == NULL);
        CHECK_STR(a->source, "<array>");
    }
    grove_dataset_free(b);
    b = (grove_dataset *)(uintptr_t)1;
    const double negative[3] = {1, -1, 1};
    CHECK_STATUS(grove_dataset_from_array(x64, GROVE_FLOAT64, 3, 2, y, negative, NULL, NULL, NULL,
                                          &b),
                 GROVE_ERR_DATA);
    CHECK(b == NULL);
    CHECK_CONTAINS(grove_last_error(), "<array>: row 1: expected a non-negative finite weight");
    const double inf[2] = {1, INFINITY}, huge[2] = {1e300, 1};
    CHECK_STATUS(grove_dataset_from_array(inf, GROVE_FLOAT64, 1, 2, NULL, NULL, NULL, NULL, NULL,
                                          &b),
                 GROVE_ERR_DATA);
    CHECK_CONTAINS(grove_last_error(), "<array>: row 0, feature 1 ('f1')");
    CHECK_STATUS(grove_dataset_from_array(huge, GROVE_FLOAT64, 1, 2, NULL, NULL, NULL, NULL, NULL,
                                          &b),
                 GROVE_ERR_DATA);
    const double nan_label[3] = {1, NAN, 1};
    CHECK_STATUS(grove_dataset_from_array(x64, GROVE_FLOAT64, 3, 2, nan_label, NULL, NULL, NULL,
                                          NULL, &b),
                 GROVE_ERR_DATA);
    CHECK_CONTAINS(grove_last_error(), "<array>: row 1: expected a finite label");
    CHECK_STATUS(grove_dataset_from_array(x64, GROVE_FLOAT64, 3, 2, NULL, NULL, NULL, NULL, NULL,
                                          NULL),
                 GROVE_ERR_ARG);
    CHECK_STATUS(grove_dataset_from_array(NULL, GROVE_FLOAT64, 3, 2, NULL, NULL, NULL, NULL, NULL,
                                          &b),
                 GROVE_ERR_ARG);
    CHECK_STATUS(grove_dataset_from_array(x64, (grove_dtype)7, 3, 2, NULL, NULL, NULL, NULL, NULL,
                                          &b),
                 GROVE_ERR_ARG);
    /* regression by the labels, classification by the parameter */
    const double yr[3] = {0.5, 1.25, 2};
    grove_params *p = make_params("task=classification");
    CHECK_OK(grove_dataset_from_array(x64, GROVE_FLOAT64, 3, 2, yr, NULL, NULL, NULL, NULL, &b));
    if (b) CHECK_EQ_INT(grove_schema_task(b->schema), GROVE_REGRESSION);
    grove_dataset_free(b);
    CHECK_OK(grove_dataset_from_array(x64, GROVE_FLOAT64, 3, 2, yr, NULL, NULL, p, NULL, &b));
    if (b) CHECK_STR(grove_schema_class_name(b->schema, 1), "1.25");
    grove_dataset_free(b);
    grove_params_free(p);

    /* with a schema: numeric classes by value; categorical codes checked */
    if (a) {
        const double y2[2] = {2, 1}, y_bad[2] = {2, 3};
        CHECK_OK(grove_dataset_from_array(x64, GROVE_FLOAT64, 2, 2, y2, NULL, NULL, NULL,
                                          a->schema, &b));
        if (b) {
            CHECK_EQ_DBL(b->labels[0], 1);
            CHECK_EQ_DBL(b->labels[1], 0);
            CHECK(gv_schema_equal(b->schema, a->schema));
        }
        grove_dataset_free(b);
        CHECK_STATUS(grove_dataset_from_array(x64, GROVE_FLOAT64, 2, 2, y_bad, NULL, NULL, NULL,
                                              a->schema, &b),
                     GROVE_ERR_DATA);
        CHECK_CONTAINS(grove_last_error(), "<array>: row 1: expected one of the classes (1, 2)");
        CHECK_STATUS(grove_dataset_from_array(x64, GROVE_FLOAT64, 2, 3, NULL, NULL, NULL, NULL,
                                              a->schema, &b),
                     GROVE_ERR_DATA);
        CHECK_CONTAINS(grove_last_error(), "expected 2 features");
    }
    grove_dataset_free(a);
    grove_dataset *hv = LOAD(example("house_votes84_train.csv"), NULL, NULL, GROVE_OK);
    if (hv) {
        double row[2 * 16];
        for (int k = 0; k < 32; k++) row[k] = k % 3 == 0 ? NAN : k % 2;
        const double y2[2] = {1, 0}, y_bad[2] = {1, 2};
        CHECK_OK(grove_dataset_from_array(row, GROVE_FLOAT64, 2, 16, y2, NULL, NULL, NULL,
                                          hv->schema, &b));
        if (b) CHECK_EQ_DBL(b->labels[0], 1); /* named classes: labels are indices */
        grove_dataset_free(b);
        CHECK_STATUS(grove_dataset_from_array(row, GROVE_FLOAT64, 2, 16, y_bad, NULL, NULL, NULL,
                                              hv->schema, &b),
                     GROVE_ERR_DATA);
        CHECK_CONTAINS(grove_last_error(), "expected a class index");
        row[5] = 2;
        CHECK_STATUS(grove_dataset_from_array(row, GROVE_FLOAT64, 2, 16, NULL, NULL, NULL, NULL,
                                              hv->schema, &b),
                     GROVE_ERR_DATA);
        CHECK_CONTAINS(grove_last_error(),
                       "<array>: row 0, feature 5 ('V6'): expected a category code, found 2");
        grove_dataset_free(hv);
    }
}

/* ---- subsets and accessors ---- */

static void test_subset(void)
{
    grove_dataset *d = LOAD(write_text("sub.csv", "label,x,c,w\na,1,p,0.5\nb,2,q,1\nc,3,p,2\n"),
                            "weight=w", NULL, GROVE_OK);
    if (!d) return;
    const size_t rows[4] = {2, 2, 0, 1};
    grove_dataset *s = NULL;
    CHECK_OK(grove_dataset_subset(d, rows, 4, &s));
    if (s) {
        CHECK_EQ_INT(grove_dataset_n_rows(s), 4);
        CHECK(gv_schema_equal(s->schema, d->schema));
        for (size_t k = 0; k < 4; k++) {
            CHECK_EQ_DBL(value_at(s, 0, k), value_at(d, 0, rows[k]));
            CHECK_EQ_DBL(value_at(s, 1, k), value_at(d, 1, rows[k]));
            CHECK_EQ_DBL(s->labels[k], d->labels[rows[k]]);
            CHECK_EQ_DBL(s->weights[k], d->weights[rows[k]]);
        }
        grove_dataset_free(s);
    }
    CHECK_OK(grove_dataset_subset(d, NULL, 0, &s));
    if (s) CHECK_EQ_INT(grove_dataset_n_rows(s), 0);
    grove_dataset_free(s);
    const size_t bad[2] = {0, 3};
    s = (grove_dataset *)(uintptr_t)1;
    CHECK_STATUS(grove_dataset_subset(d, bad, 2, &s), GROVE_ERR_ARG);
    CHECK(s == NULL);
    CHECK_CONTAINS(grove_last_error(), "rows[1] = 3 is out of range");
    CHECK_STATUS(grove_dataset_subset(NULL, rows, 1, &s), GROVE_ERR_ARG);
    CHECK_STATUS(grove_dataset_subset(d, rows, 1, NULL), GROVE_ERR_ARG);
    grove_dataset_free(d);

    /* accessors on NULL: neutral values and a message */
    CHECK_EQ_INT(grove_dataset_n_rows(NULL), 0);
    CHECK_CONTAINS(grove_last_error(), "NULL");
    CHECK_EQ_INT(grove_dataset_n_features(NULL), 0);
    CHECK_EQ_INT(grove_dataset_has_labels(NULL), 0);
    CHECK(grove_dataset_schema(NULL) == NULL);
    CHECK(isnan(grove_dataset_label(NULL, 0)));
    CHECK_STR(grove_dataset_warning(NULL), "");
    CHECK_EQ_INT(grove_schema_n_features(NULL), 0);
    CHECK_EQ_INT(grove_schema_n_classes(NULL), 0);
    CHECK(grove_schema_feature_name(NULL, 0) == NULL);
    CHECK(grove_schema_class_name(NULL, 0) == NULL);
    CHECK(grove_schema_label_name(NULL) == NULL);
    CHECK_EQ_INT(grove_schema_is_categorical(NULL, 0), 0);
    grove_dataset_free(NULL);
    CHECK_STATUS(grove_dataset_load(NULL, NULL, NULL, &s), GROVE_ERR_ARG);
    CHECK_STATUS(grove_dataset_load("x.csv", NULL, NULL, NULL), GROVE_ERR_ARG);
    d = LOAD(example("iris.libsvm"), NULL, NULL, GROVE_OK);
    if (d) {
        CHECK(grove_schema_feature_name(d->schema, 4) == NULL);
        CHECK_CONTAINS(grove_last_error(), "feature 4 is out of range (4 features)");
        CHECK(isnan(grove_dataset_label(d, 150)));
        CHECK_STR(grove_schema_feature_name(d->schema, 0), "f1");
        CHECK_STR(grove_last_error(), "");
        grove_dataset_free(d);
    }
}

/* ---- threads: same result and same first error for any thread count ---- */

static void test_threads(void)
{
    const size_t n = 30000;
    gv_buf text = {0};
    gv_buf_printf(&text, "label,a,b,c\n");
    for (size_t i = 0; i < n; i++)
        gv_buf_printf(&text, "%s,%.6f,%s,%zu\n", i % 3 ? "x" : "y", (double)i / 7.0,
                      (i * 7919) % 13 ? "k" : (i % 2 ? "m" : "\"n,o\""), i % 5);
    const char *path = write_bytes("big.csv", text.data, text.len);
    grove_dataset *one = LOAD(path, "threads=1", NULL, GROVE_OK);
    grove_dataset *four = LOAD(path, "threads=4", NULL, GROVE_OK);
    if (one && four) {
        CHECK_EQ_INT(one->n_rows, n);
        CHECK(gv_schema_equal(one->schema, four->schema));
        CHECK(!memcmp(one->values, four->values, 3 * n * sizeof(float)));
        CHECK(!memcmp(one->labels, four->labels, n * sizeof(double)));
        CHECK_EQ_INT(one->schema->categories[1].n, 3);
        CHECK_EQ_DBL(value_at(one, 0, 29999), (float)(29999 / 7.0));
    }
    /* the parallel file read (made to apply to this small file), same bytes */
    gv_read_set_chunk(4096);
    grove_dataset *chunked = LOAD(path, "threads=4", NULL, GROVE_OK);
    gv_read_set_chunk(0);
    if (one && chunked) {
        CHECK(gv_schema_equal(one->schema, chunked->schema));
        CHECK(!memcmp(one->values, chunked->values, 3 * n * sizeof(float)));
        CHECK(!memcmp(one->labels, chunked->labels, n * sizeof(double)));
    }
    grove_dataset_free(chunked);
    /* the file mapped instead of read (made to apply to this small file: every pass then
     * hands its pages back behind itself), same dataset for 1 and 4 threads */
    gv_read_set_map_min(1);
    grove_dataset *mapped1 = LOAD(path, "threads=1", NULL, GROVE_OK);
    grove_dataset *mapped4 = LOAD(path, "threads=4", NULL, GROVE_OK);
    gv_read_set_map_min(0);
    for (int t = 0; t < 2; t++) {
        const grove_dataset *m = t ? mapped4 : mapped1;
        CHECK(one && m);
        if (!one || !m) continue;
        CHECK(gv_schema_equal(one->schema, m->schema));
        CHECK(!memcmp(one->values, m->values, 3 * n * sizeof(float)));
        CHECK(!memcmp(one->labels, m->labels, n * sizeof(double)));
    }
    grove_dataset_free(mapped1);
    grove_dataset_free(mapped4);
    grove_dataset_free(one);
    grove_dataset_free(four);
    /* two ragged rows in different blocks: the first one's error wins for any thread count */
    char *p = strstr(text.data + text.len / 2, "\nx,");
    char *q = strstr(text.data + text.len / 10 * 9, "\nx,");
    CHECK(p && q);
    if (p && q) {
        p[2] = ';';
        q[2] = ';';
        size_t line = 2; /* the line after p's newline */
        for (const char *r = text.data; r < p; r++) line += *r == '\n';
        char want[64], msg1[1100], msg4[1100];
        snprintf(want, sizeof want, "big_bad.csv:%zu:4: expected 4 fields, found 3", line);
        path = write_bytes("big_bad.csv", text.data, text.len);
        LOAD(path, "threads=1", NULL, GROVE_ERR_PARSE);
        snprintf(msg1, sizeof msg1, "%s", grove_last_error());
        LOAD(path, "threads=4", NULL, GROVE_ERR_PARSE);
        snprintf(msg4, sizeof msg4, "%s", grove_last_error());
        CHECK_STR(msg1, msg4);
        CHECK_CONTAINS(msg1, want);
        gv_read_set_map_min(1); /* mapped, its pages released: the same message */
        LOAD(path, "threads=4", NULL, GROVE_ERR_PARSE);
        gv_read_set_map_min(0);
        CHECK_STR(grove_last_error(), msg1);
    }
    gv_buf_free(&text);
}

/* A mapped file (gv_read_set_map_min) parses as the same file read into a buffer: quoted
 * fields holding newlines across page boundaries, text columns (the category pass), a file
 * whose size is a whole number of pages (its NUL comes from the page after the mapping), and a
 * NUL byte pages into the file (the same message). */
static void test_mapped(void)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    gv_buf text = {0};
    gv_buf_printf(&text, "\xEF\xBB\xBFlabel,a,s\r\n");
    for (size_t i = 0; text.len < 3 * page - 64; i++)
        gv_buf_printf(&text, "%s,%zu.5,\"line %zu\nnext \"\"%zu\"\"\"\r\n", i % 2 ? "yes" : "no",
                      i % 17, i, i % 3);
    while (text.len < 3 * page - 1) gv_buf_printf(&text, "\n");
    gv_buf_printf(&text, "\n"); /* exactly three pages */
    CHECK_EQ_INT(text.len, 3 * page);
    const char *path = write_bytes("mapped.csv", text.data, text.len);
    grove_dataset *read = LOAD(path, "threads=2", NULL, GROVE_OK);
    gv_read_set_map_min(1);
    grove_dataset *mapped = LOAD(path, "threads=2", NULL, GROVE_OK);
    gv_read_set_map_min(0);
    CHECK(read && mapped);
    if (read && mapped) {
        CHECK(read->n_rows > 100);
        CHECK_EQ_INT(mapped->n_rows, read->n_rows);
        CHECK(gv_schema_equal(read->schema, mapped->schema));
        CHECK_EQ_INT(mapped->schema->categories[1].n, read->n_rows); /* every s distinct */
        CHECK(!memcmp(read->values, mapped->values, 2 * read->n_rows * sizeof(float)));
        CHECK(!memcmp(read->labels, mapped->labels, read->n_rows * sizeof(double)));
    }
    grove_dataset_free(read);
    grove_dataset_free(mapped);
    /* a NUL byte on the second page */
    text.data[page + page / 2] = '\0';
    path = write_bytes("mapped_nul.csv", text.data, text.len);
    char msg[1100];
    LOAD(path, "threads=2", NULL, GROVE_ERR_PARSE);
    snprintf(msg, sizeof msg, "%s", grove_last_error());
    CHECK_CONTAINS(msg, "found a NUL byte");
    gv_read_set_map_min(1);
    LOAD(path, "threads=2", NULL, GROVE_ERR_PARSE);
    gv_read_set_map_min(0);
    CHECK_STR(grove_last_error(), msg);
    gv_buf_free(&text);
}

/* ---- every allocation failing in turn ---- */

typedef grove_status (*load_fn)(void *ctx, grove_dataset **out);

static grove_status op_load(void *ctx, grove_dataset **out)
{
    const char **args = ctx; /* path, params spec, (schema source) */
    *out = NULL;
    grove_params *p = NULL;
    grove_status st = grove_params_create(&p);
    if (st != GROVE_OK) return st;
    if (strcmp(args[1], "-") && (st = grove_params_set_pair(p, args[1])) != GROVE_OK) {
        grove_params_free(p);
        return st;
    }
    grove_dataset *schema_source = NULL;
    if (args[2]) st = grove_dataset_load(args[2], p, NULL, &schema_source);
    if (st == GROVE_OK)
        st = grove_dataset_load(args[0], p, schema_source ? schema_source->schema : NULL, out);
    grove_dataset_free(schema_source);
    grove_params_free(p);
    return st;
}

static grove_status op_array(void *ctx, grove_dataset **out)
{
    (void)ctx;
    *out = NULL;
    const double x[4 * 2] = {1, 2, 3, 4, 5, NAN, 7, 8}, y[4] = {0, 1, 0, 2}, w[4] = {1, 1, 2, 2};
    grove_dataset *a = NULL, *s = NULL;
    grove_status st =
        grove_dataset_from_array(x, GROVE_FLOAT64, 4, 2, y, w, NULL, NULL, NULL, &a);
    if (st == GROVE_OK) st = grove_dataset_from_array(x, GROVE_FLOAT64, 4, 2, y, w, NULL, NULL,
                                                      a->schema, &s);
    const size_t rows[3] = {3, 0, 0};
    if (st == GROVE_OK) st = grove_dataset_subset(s, rows, 3, out);
    grove_dataset_free(a);
    grove_dataset_free(s);
    return st;
}

static void alloc_failures(const char *what, load_fn fn, void *ctx)
{
    long n;
    for (n = 1; n < 100000; n++) {
        grove_dataset *d = (grove_dataset *)(uintptr_t)1;
        gv_alloc_fail_after(n);
        grove_status st = fn(ctx, &d);
        gv_alloc_fail_after(0);
        if (st == GROVE_OK) {
            grove_dataset_free(d);
            break;
        }
        check_count_++;
        if (st != GROVE_ERR_NOMEM || d != NULL) {
            CHECK_FAIL_("%s: allocation %ld failing gave %s (out %p): %s", what, n,
                        grove_status_str(st), (void *)d, grove_last_error());
            break;
        }
    }
    CHECK(n > 3);
}

static void test_alloc_failures(void)
{
    const char *csv = write_text("oom.csv", "label,x,c,w\n\"a\"\"b\",1.5,red,1\nc,NA,\"gr,een\",2\n"
                                            "\"a\"\"b\",3,red,0\n");
    const char *csv_test = write_text("oom_test.csv", "c,x,w\nred,1,1\nmauve,2,3\n");
    const char *svm = write_text("oom.libsvm", "1 1:1 3:2\n0 2:1 # c\n1 1:5 4:1\n");
    const char *big = write_text("oom_long.csv", "label,x\n1,"
                                 "1.00000000000000000000000000000000000000000000000000000000000"
                                 "0000000000000000000000000000000000000000000000000000000000001"
                                 "000000000000000000001\n0,2\n");
    const char *cases[][3] = {{csv, "weight=w", NULL},   {csv_test, "-", csv},
                              {svm, "-", NULL},          {svm, "-", svm},
                              {big, "-", NULL},
                              {example("penguins_train.csv"), "threads=2", NULL}};
    char gz[256];
    snprintf(gz, sizeof gz, "%s", tmp_path("oom.csv.gz"));
    gzFile g = gzopen(gz, "wb");
    if (g) {
        gzputs(g, "label,x\n1,2\n0,3\n");
        gzclose(g);
    }
    const char *gz_case[3] = {gz, "-", NULL};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        alloc_failures(cases[k][0], op_load, (void *)cases[k]);
    alloc_failures("gzip", op_load, (void *)gz_case);
    alloc_failures("array", op_array, NULL);
}

/* ---- random mutations of a valid file: never a crash, a leak, or an inconsistent result ---- */

static void check_consistent(const grove_dataset *d)
{
    const grove_schema *s = d->schema;
    for (size_t f = 0; f < s->n_features; f++)
        for (size_t i = 0; i < d->n_rows; i++) {
            float x = value_at(d, f, i);
            if (s->is_categorical[f] && !isnan(x))
                CHECK(x >= 0 && x < (float)s->categories[f].n && x == floorf(x));
            if (!isnan(x)) CHECK(isfinite(x));
        }
    for (size_t i = 0; d->labels && i < d->n_rows; i++) {
        CHECK(isfinite(d->labels[i]));
        if (s->task == GROVE_CLASSIFICATION) CHECK(d->labels[i] < (double)s->classes.n);
    }
}

static void test_mutations(void)
{
    static const char seed_csv[] = "label,x,\"c d\",e\n1,0.5,\"q,\"\"r\",NA\n0,-2e3,s,7\n"
                                   "1,,\"t\nu\",8\n";
    static const char seed_svm[] = "1 1:0.5 3:2 # c\n0 qid:1 2:1e3\n\n-1 1:? 4:7\n";
    static const char alphabet[] = ",\"\n\r\0a1.: #e-\t?";
    char buf[256];
    for (int t = 0; t < 4000; t++) {
        const char *seed = t & 1 ? seed_svm : seed_csv;
        size_t len = strlen(seed);
        memcpy(buf, seed, len);
        int n_edits = 1 + (int)(next_random() % 4);
        for (int e = 0; e < n_edits; e++) {
            uint64_t r = next_random();
            size_t at = (size_t)(r % (len + 1));
            char ch = alphabet[(r >> 20) % (sizeof alphabet - 1)];
            switch ((r >> 40) % 3) {
            case 0: /* replace */
                if (at < len) buf[at] = ch;
                break;
            case 1: /* insert */
                if (len + 1 < sizeof buf) {
                    memmove(buf + at + 1, buf + at, len - at);
                    buf[at] = ch;
                    len++;
                }
                break;
            default: /* delete */
                if (at < len) {
                    memmove(buf + at, buf + at + 1, len - at - 1);
                    len--;
                }
            }
        }
        const char *path = write_bytes(t & 1 ? "mut.libsvm" : "mut.csv", buf, len);
        grove_params *p = make_params(t % 4 == 2 ? "threads=3;libsvm_absent=missing" : NULL);
        grove_dataset *d = NULL;
        grove_status st = grove_dataset_load(path, p, NULL, &d);
        grove_params_free(p);
        check_count_++;
        if (st == GROVE_OK) {
            check_consistent(d);
            grove_dataset_free(d);
        } else if (st != GROVE_ERR_PARSE && st != GROVE_ERR_DATA) {
            CHECK_FAIL_("mutation %d: unexpected status %s: %s", t, grove_status_str(st),
                        grove_last_error());
        } else if (!strstr(grove_last_error(), "mut.")) {
            CHECK_FAIL_("mutation %d: message does not name the file: %s", t, grove_last_error());
        }
    }
}

/* ---- the malformed-input corpus ---- */

static const char *status_name(grove_status st)
{
    switch (st) {
#define NAME_(name, value, text)                                                                   \
    case name:                                                                                     \
        return #name;
        GROVE_STATUS_LIST(NAME_)
#undef NAME_
    }
    return "?";
}

static void test_corpus(void)
{
    char path[512];
    FILE *fp = fopen(test_src_path("tests/data/bad/EXPECT.tsv", path, sizeof path), "r");
    CHECK(fp != NULL);
    if (!fp) return;
    char line[2048];
    int n_cases = 0;
    while (fgets(line, sizeof line, fp)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || line[0] == '#' || !strncmp(line, "file\t", 5)) continue;
        char *save = NULL;
        char *file = strtok_r(line, "\t", &save), *spec = strtok_r(NULL, "\t", &save);
        char *want = strtok_r(NULL, "\t", &save), *message = strtok_r(NULL, "\t", &save);
        CHECK(file && spec && want && message);
        if (!file || !spec || !want || !message) continue;
        n_cases++;
        char rel[600], full[700];
        snprintf(rel, sizeof rel, "tests/data/bad/%s", file);
        test_src_path(rel, full, sizeof full);
        grove_params *p = make_params(spec);
        grove_dataset *d = (grove_dataset *)(uintptr_t)1;
        grove_status st = grove_dataset_load(full, p, NULL, &d);
        grove_params_free(p);
        check_count_ += 3;
        if (strcmp(status_name(st), want) != 0)
            CHECK_FAIL_("%s: status %s, wanted %s: %s", file, status_name(st), want,
                        grove_last_error());
        if (!strstr(grove_last_error(), message))
            CHECK_FAIL_("%s: message \"%s\" lacks \"%s\"", file, grove_last_error(), message);
        if (st == GROVE_OK) grove_dataset_free(d);
        else if (d != NULL) CHECK_FAIL_("%s: out-parameter not cleared", file);
    }
    fclose(fp);
    CHECK(n_cases >= 40);
}

int main(void)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/grove_test_data_XXXXXX");
    if (!mkdtemp(tmp_dir)) {
        perror("mkdtemp");
        return 2;
    }
    test_numbers();
    test_breast_cancer();
    test_house_votes();
    test_penguins();
    test_diabetes();
    test_libsvm_examples();
    test_csv_syntax();
    test_csv_small_ints();
    test_category_order();
    test_task_inference();
    test_columns();
    test_follow_schema();
    test_gzip();
    test_libsvm();
    test_queries();
    test_format_detection();
    test_arrays();
    test_subset();
    test_threads();
    test_mapped();
    test_alloc_failures();
    test_mutations();
    test_corpus();
    cleanup_tmp();
    TEST_MAIN_END();
}
