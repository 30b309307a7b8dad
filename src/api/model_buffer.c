/*
 * model_buffer.c -- a model to and from memory (grove_model_to_buffer, grove_model_from_buffer):
 * the bytes grove_model_save writes to an uncompressed file, for callers that keep models
 * elsewhere (Python's pickle, a database).
 *
 * Pipeline position: api/, over model/'s text codec (gv_model_to_text, gv_model_from_text), so
 * a buffer and a file of the same model are byte for byte the same text.
 */
#include "../model/model.h"

grove_status grove_model_to_buffer(const grove_model *model, char **out, size_t *len)
{
    gv_err_clear();
    if (out) *out = NULL;
    if (len) *len = 0;
    if (!model || !out || !len)
        return gv_err(GROVE_ERR_ARG, "grove_model_to_buffer: NULL argument");
    gv_buf buf;
    grove_status st = gv_model_to_text(model, &buf);
    if (st != GROVE_OK) return st;
    *out = buf.data;
    *len = buf.len;
    return GROVE_OK;
}

grove_status grove_model_from_buffer(const char *data, size_t len, grove_model **out)
{
    gv_err_clear();
    if (!out) return gv_err(GROVE_ERR_ARG, "grove_model_from_buffer: out is NULL");
    *out = NULL;
    if (!data && len > 0) return gv_err(GROVE_ERR_ARG, "grove_model_from_buffer: data is NULL");
    unsigned long failed = gv_alloc_failures();
    return gv_nomem_if_failed(gv_model_from_text(data ? data : "", len, "<buffer>", out), failed,
                              "<buffer>");
}
