/*
 * cgen.c -- the C code generator's text helpers (cgen.h): formatted output into growing
 * buffers, literals that read back exactly, comment-safe names, component functions.
 *
 * Pipeline position: core/ (the component kinds and model/export.c write through them).
 * Exactness: %.17g reads back to the same double and %.9g to the same float (IEEE 754 binary64
 * and binary32 need 17 and 9 significant digits); a literal without '.' or exponent gets ".0" so
 * that C reads it as a floating constant.
 */
#include "cgen.h"

#include <stdio.h>
#include <string.h>

void gv_cgen_free(gv_cgen *g)
{
    gv_buf_free(&g->body);
    gv_buf_free(&g->nodes);
    gv_buf_free(&g->values);
    gv_buf_free(&g->cats);
}

void gv_cgen_out(gv_buf *b, gv_cgen *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (gv_buf_vprintf(b, fmt, ap) != 0) g->nomem = 1;
    va_end(ap);
}

void gv_cgen_append(gv_buf *to, const gv_buf *from, gv_cgen *g)
{
    if (from->len && gv_buf_append(to, from->data, from->len) != 0) g->nomem = 1;
}

void gv_cgen_dlit(double x, char *buf)
{
    snprintf(buf, 40, "%.17g", x);
    if (!strpbrk(buf, ".eEni")) strcat(buf, ".0");
}

void gv_cgen_flit(float x, char *buf)
{
    snprintf(buf, 40, "%.9g", (double)x);
    if (!strpbrk(buf, ".eEni")) strcat(buf, ".0");
    strcat(buf, "f");
}

void gv_cgen_name(const char *s, char *buf)
{
    size_t j = 0;
    for (size_t i = 0; s[i] && j < 60; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 32 || c == 127) c = ' ';
        if (c == '/' && j > 0 && buf[j - 1] == '*') c = ' ';
        if (c == '*' && s[i + 1] == '/') c = ' ';
        buf[j++] = (char)c;
    }
    if (s[0] && j == 60) buf[j - 1] = '.';
    buf[j] = '\0';
}

void gv_cgen_dlist(gv_buf *b, gv_cgen *g, const double *v, size_t n)
{
    char lit[GV_CGEN_LIT];
    for (size_t i = 0; i < n; i++) {
        gv_cgen_dlit(v[i], lit);
        gv_cgen_out(b, g, "%s%s,", i % 4 == 0 ? "\n    " : " ", lit);
    }
    if (n == 0) gv_cgen_out(b, g, "\n    0.0");
    gv_cgen_out(b, g, "\n");
}

size_t gv_cgen_open_function(gv_cgen *g, const char *what)
{
    size_t id = g->n_comps++;
    gv_cgen_out(&g->body, g, "\n/* %s */\nstatic void c%zu(const float *x, double *out)\n{\n", what,
                id);
    return id;
}
