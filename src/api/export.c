/*
 * export.c -- grove_model_export: a trained model as source code in another language.
 *
 * Pipeline position: api/.  Checks the arguments (language, prefix, form) and calls the
 * generator in model/export.c, which asks each component for its code (its export_c slot).
 */
#include "../model/model.h"

#include <string.h>

/* A C identifier of 1 to 64 characters. */
static int is_identifier(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 64) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                 (i > 0 && c >= '0' && c <= '9');
        if (!ok) return 0;
    }
    return 1;
}

grove_status grove_model_export(const grove_model *model, const char *lang, const char *prefix,
                                const char *form, char **out)
{
    gv_err_clear();
    if (!out) return gv_err(GROVE_ERR_ARG, "grove_model_export: out is NULL");
    *out = NULL;
    if (!model || !lang) return gv_err(GROVE_ERR_ARG, "grove_model_export: NULL argument");
    int header = !strcmp(lang, "h");
    if (strcmp(lang, "c") != 0 && !header)
        return gv_err(GROVE_ERR_ARG, "export: language '%s' is not supported (c and h are)", lang);
    if (!prefix) prefix = "model";
    if (!is_identifier(prefix))
        return gv_err(GROVE_ERR_ARG,
                      "export: prefix '%s' is not a C identifier of at most 64 characters", prefix);
    int f;
    if (!form || !strcmp(form, "auto"))
        f = GV_EXPORT_AUTO;
    else if (!strcmp(form, "code"))
        f = GV_EXPORT_CODE;
    else if (!strcmp(form, "table"))
        f = GV_EXPORT_TABLE;
    else
        return gv_err(GROVE_ERR_ARG, "export: form must be auto, code or table, got '%s'", form);
    gv_buf text = {0};
    grove_status st = gv_model_export_c(model, prefix, f, header, &text);
    if (st != GROVE_OK) return st;
    *out = text.data; /* gv_buf data is a gv_malloc'd NUL-terminated string */
    if (!*out) *out = gv_strdup("");
    return *out ? GROVE_OK : gv_err_nomem("the exported code");
}
