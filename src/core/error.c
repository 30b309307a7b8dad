/*
 * error.c -- the per-thread error record and the status list's strings.
 *
 * Every public function clears the record on entry and fills it on failure; the message is
 * kept in a fixed thread-local buffer so that recording an error never allocates (it must
 * work when memory is exhausted).  Messages longer than the buffer are cut with "...".
 */
#include "core.h"

#include <stdio.h>
#include <string.h>

#define GV_ERR_CAP 1024

static _Thread_local char err_msg[GV_ERR_CAP];

static void truncate_mark(int n)
{
    if (n >= GV_ERR_CAP) memcpy(err_msg + GV_ERR_CAP - 4, "...", 4);
}

grove_status gv_err(grove_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err_msg, sizeof err_msg, fmt, ap);
    va_end(ap);
    truncate_mark(n);
    return status;
}

void gv_err_prefix(const char *fmt, ...)
{
    char old[GV_ERR_CAP];
    memcpy(old, err_msg, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err_msg, sizeof err_msg, fmt, ap);
    va_end(ap);
    if (n < 0 || n >= GV_ERR_CAP - 3) {
        truncate_mark(n);
        return;
    }
    int m = snprintf(err_msg + n, sizeof err_msg - (size_t)n, ": %s", old);
    truncate_mark(n + m);
}

void gv_err_clear(void) { err_msg[0] = '\0'; }

grove_status gv_err_nomem(const char *what)
{
    return gv_err(GROVE_ERR_NOMEM, "out of memory while allocating %s", what);
}

const char *grove_last_error(void) { return err_msg; }

const char *grove_status_str(grove_status status)
{
    switch (status) {
#define GV_STATUS_CASE_(name, value, text)                                                         \
    case name:                                                                                     \
        return text;
        GROVE_STATUS_LIST(GV_STATUS_CASE_)
#undef GV_STATUS_CASE_
    }
    return "unknown status";
}

const char *grove_version(void) { return GROVE_VERSION_STRING; }
