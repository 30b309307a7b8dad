/*
 * fuzz_cascade.c -- libFuzzer target for the cascade readers (vision/cascade_xml.c: OpenCV's
 * Haar XML, both layouts; vision/cascade.c: grove's JSON cascade file), by content.
 *
 * A cascade that loads is described, classifies the top-left window of a 64 x 64 test pattern
 * and scans it (grove_cascade_detect), and is written in both formats, each of which must load
 * again.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static grove_image *pattern(void)
{
    static grove_image *img;
    if (!img) {
        uint8_t px[64 * 64];
        for (int y = 0; y < 64; y++)
            for (int x = 0; x < 64; x++) px[y * 64 + x] = (uint8_t)((x * 7 + y * 13) ^ (x * y));
        if (grove_image_from_gray(px, 64, 64, 64, &img) != GROVE_OK) img = NULL;
    }
    return img;
}

static void reload(const char *path)
{
    grove_cascade *c = NULL;
    if (grove_cascade_load(path, &c) != GROVE_OK) abort(); /* grove's own output */
    grove_cascade_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512], out[512];
    grove_cascade *c = NULL;
    if (fuzz_write("cascade.xml", data, size, path, sizeof path) != 0 ||
        grove_cascade_load(path, &c) != GROVE_OK)
        return 0;
    int w = 0, h = 0, stages = 0, weak = 0;
    grove_cascade_describe(c, &w, &h, &stages, &weak);
    grove_image *img = pattern();
    if (img) {
        int accepted = 0, passed = 0;
        grove_cascade_classify(c, img, &accepted, &passed);
        int *boxes = NULL;
        size_t n = 0;
        if (grove_cascade_detect(c, img, 1.5, 0, NULL, NULL, 4, 1, &boxes, &n, NULL) == GROVE_OK)
            grove_boxes_free(boxes);
    }
    snprintf(out, sizeof out, "%s.grove.json", path);
    if (grove_cascade_save(c, out) == GROVE_OK) reload(out);
    snprintf(out, sizeof out, "%s.opencv.xml", path);
    if (grove_cascade_save_opencv(c, out) == GROVE_OK) reload(out);
    grove_cascade_free(c);
    return 0;
}
