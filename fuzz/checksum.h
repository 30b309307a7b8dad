/*
 * checksum.h -- a fuzz input with its checksum made right again, so that a mutated model file
 * reaches the checks behind "checksum mismatch": a JSON model's "crc32" recomputed the way the
 * writer computes it (CRC-32 of the canonical text without "crc32", model/model_json.c), a
 * binary model's (.gvb, model/model_bin.c) trailer length and CRC-32 recomputed.  Shared by
 * fuzz_model.c and fuzz_roundtrip.c.
 */
#ifndef GROVE_FUZZ_CHECKSUM_H
#define GROVE_FUZZ_CHECKSUM_H

#include "fuzz_common.h"

#include <jansson.h>
#include <zlib.h>

static inline int crc_cb(const char *buffer, size_t size, void *ctx)
{
    uLong *crc = ctx;
    *crc = crc32(*crc, (const Bytef *)buffer, (uInt)size);
    return 0;
}

/* The input with "crc32" recomputed, as a new string, or NULL when it is not a JSON object. */
static inline char *with_checksum(const uint8_t *data, size_t size)
{
    json_t *doc = json_loadb((const char *)data, size, 0, NULL);
    if (!json_is_object(doc)) {
        json_decref(doc);
        return NULL;
    }
    json_object_del(doc, "crc32");
    uLong crc = crc32(0L, Z_NULL, 0);
    char hex[9], *text = NULL;
    if (json_dump_callback(doc, crc_cb, &crc,
                           JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17)) == 0) {
        snprintf(hex, sizeof hex, "%08lx", (unsigned long)(crc & 0xFFFFFFFFul));
        if (json_object_set_new(doc, "crc32", json_string(hex)) == 0)
            text = json_dumps(doc, JSON_REAL_PRECISION(17));
    }
    json_decref(doc);
    return text;
}

/* A binary model (model_bin.c) with its trailer's length and CRC-32 recomputed, written to a
 * file (binary models load from files only): 0 when written. */
static inline int binary_with_checksum(const uint8_t *data, size_t size, char *path, size_t cap)
{
    if (size < 40 || memcmp(data, "GROVEBIN", 8) != 0) return -1;
    uint8_t *b = malloc(size);
    if (!b) return -1;
    memcpy(b, data, size);
    uint64_t len = size - 40;
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, b + 24, (uInt)len);
    for (int i = 0; i < 8; i++) b[size - 16 + i] = (uint8_t)(len >> (8 * i));
    for (int i = 0; i < 4; i++) b[size - 8 + i] = (uint8_t)(crc >> (8 * i));
    memcpy(b + size - 4, "GVBE", 4);
    int rc = fuzz_write("fixed.gvb", b, size, path, cap);
    free(b);
    return rc;
}

#endif
