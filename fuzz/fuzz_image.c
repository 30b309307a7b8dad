/*
 * fuzz_image.c -- libFuzzer target for the image readers (vision/image.c: PGM P5/P2, PNG and
 * JPEG, by content).
 *
 * A picture that loads is scanned: by OpenCV's frontal-face cascade (opencv-data; skipped when
 * it is not installed) with grove_cascade_detect on pictures up to 160 x 160 pixels, and by
 * grove_cascade_classify on its top-left window; its pixels are read and it is written back as
 * a PNG with a box drawn on it.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static grove_cascade *face_cascade(void)
{
    static int tried;
    static grove_cascade *cascade;
    if (!tried) {
        tried = 1;
        if (grove_cascade_load("/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml",
                               &cascade) != GROVE_OK)
            cascade = NULL;
    }
    return cascade;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512], out[512];
    grove_image *img = NULL;
    if (fuzz_write("image", data, size, path, sizeof path) != 0 ||
        grove_image_load(path, &img) != GROVE_OK)
        return 0;
    int w = grove_image_width(img), h = grove_image_height(img);
    const uint8_t *px = grove_image_pixels(img);
    unsigned sum = 0;
    for (long i = 0; i < (long)w * h; i += 97) sum += px[i];
    (void)sum;
    grove_cascade *c = face_cascade();
    if (c) {
        int accepted = 0, passed = 0;
        grove_cascade_classify(c, img, &accepted, &passed);
        if (w <= 160 && h <= 160) {
            int *boxes = NULL;
            size_t n = 0;
            if (grove_cascade_detect(c, img, 1.25, 1, NULL, NULL, 0, 1, &boxes, &n, NULL) ==
                GROVE_OK)
                grove_boxes_free(boxes);
        }
    }
    if ((long)w * h <= 65536) {
        int box[5] = {0, 0, w / 2, h / 2, 1};
        snprintf(out, sizeof out, "%s.png", path);
        grove_image_save_png_boxes(img, box, 1, NULL, 1, out);
    }
    grove_image_free(img);
    return 0;
}
