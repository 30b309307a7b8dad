"""Viola-Jones face detection from Python: grove's cascades (trained by grove or OpenCV's XML)
over libgrove's grove_cascade_* / grove_image_* calls (docs/vision.md).

    c = grove.Cascade.load("/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml")
    boxes = c.detect(grey)        # grey: a 2-D uint8 array (or an image path) -> (n, 5) int array
                                  # of x, y, width, height, neighbours, as cv2's detectMultiScale
    c = grove.Cascade.train("faces/", "backgrounds/", stages=12, n_jobs=2)
    c.stages()                    # the per-stage record: f, d, F, D, features, negatives, ...
    c.save("face.json"); c.save_opencv("face.xml")

The GIL is released while the library trains and detects (ctypes), so several Python threads can
detect with one cascade at once; errors are ValueError with the library's message.
"""
import ctypes
import os

import numpy as np

from ._lib import lib, check
from .core import Params

_vp = ctypes.c_void_p
_IP = ctypes.POINTER(ctypes.c_int)


def _decl(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)


_decl("grove_image_load", ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(_vp))
_decl("grove_image_from_gray", ctypes.c_int, _vp, ctypes.c_int, ctypes.c_int, ctypes.c_size_t,
      ctypes.POINTER(_vp))
_decl("grove_image_free", None, _vp)
_decl("grove_cascade_load", ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(_vp))
_decl("grove_cascade_save", ctypes.c_int, _vp, ctypes.c_char_p)
_decl("grove_cascade_save_opencv", ctypes.c_int, _vp, ctypes.c_char_p)
_decl("grove_cascade_free", None, _vp)
_decl("grove_cascade_describe", ctypes.c_int, _vp, _IP, _IP, _IP, _IP)
_decl("grove_cascade_stage_stats", ctypes.c_int, _vp, ctypes.c_int,
      *([ctypes.POINTER(ctypes.c_double)] * 4), _IP, ctypes.POINTER(ctypes.c_size_t),
      ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double))
_decl("grove_cascade_train", ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, _vp,
      ctypes.POINTER(_vp))
_decl("grove_cascade_detect", ctypes.c_int, _vp, _vp, ctypes.c_double, ctypes.c_int, _IP, _IP,
      ctypes.c_int, ctypes.c_int, ctypes.POINTER(_IP), ctypes.POINTER(ctypes.c_size_t),
      ctypes.POINTER(ctypes.c_double))
_decl("grove_boxes_free", None, _IP)


class _Image:
    """An owned grove_image from a path or a 2-D uint8 array (rows may be strided)."""

    def __init__(self, image):
        h = _vp()
        if isinstance(image, (str, os.PathLike)):
            check(lib.grove_image_load(os.fsencode(image), ctypes.byref(h)))
        else:
            a = np.asarray(image)
            if a.ndim != 2:
                raise ValueError("image: expected a 2-D grey array (height, width), got shape %r;"
                                 " convert colour first, e.g. cv2.cvtColor(img, "
                                 "cv2.COLOR_BGR2GRAY)" % (a.shape,))
            if a.dtype != np.uint8:
                raise ValueError("image: expected dtype uint8, got %s" % a.dtype)
            if a.strides[1] != 1 or a.strides[0] < a.shape[1]:
                a = np.ascontiguousarray(a)
            check(lib.grove_image_from_gray(a.ctypes.data_as(_vp), a.shape[1], a.shape[0],
                                            a.strides[0], ctypes.byref(h)))
        self.handle = h

    def __del__(self):
        if getattr(self, "handle", None):
            lib.grove_image_free(self.handle)
            self.handle = None


class Cascade:
    """An attentional cascade of boosted Haar-feature classifiers."""

    def __init__(self, handle):
        self.handle = handle

    @classmethod
    def load(cls, path):
        """grove's cascade file or OpenCV's Haar cascade XML."""
        h = _vp()
        check(lib.grove_cascade_load(os.fsencode(path), ctypes.byref(h)))
        return cls(h)

    @classmethod
    def train(cls, positives, negatives, /, random_state=0, n_jobs=None, **params):
        """Trains a cascade (Viola & Jones 2004): positives a folder of crops or a CSV of boxes,
        negatives a folder of images without the object; keyword arguments are the cascade.*
        parameters without the prefix (stages=12, max_fp=0.5, window="24x24", negatives=N for
        the negatives mined per stage, ...; see `grove help params`)."""
        p = {"cascade." + k: v for k, v in params.items()}
        p["seed"] = random_state
        p["threads"] = 0 if n_jobs is None or n_jobs < 0 else n_jobs
        h, prm = _vp(), Params(p)  # prm lives until the call returns
        check(lib.grove_cascade_train(os.fsencode(positives), os.fsencode(negatives),
                                      prm.handle, ctypes.byref(h)))
        return cls(h)

    def save(self, path):
        check(lib.grove_cascade_save(self.handle, os.fsencode(path)))

    def save_opencv(self, path):
        check(lib.grove_cascade_save_opencv(self.handle, os.fsencode(path)))

    def _describe(self):
        v = [ctypes.c_int() for _ in range(4)]
        check(lib.grove_cascade_describe(self.handle, *[ctypes.byref(x) for x in v]))
        return [x.value for x in v]

    @property
    def window(self):
        w, h, _, _ = self._describe()
        return (w, h)

    @property
    def n_stages(self):
        return self._describe()[2]

    @property
    def n_weak(self):
        return self._describe()[3]

    def stages(self):
        """The training record per stage (grove-trained cascades; [] for OpenCV's files)."""
        out = []
        for s in range(self.n_stages):
            d = [ctypes.c_double() for _ in range(4)]
            nw, neg = ctypes.c_int(), ctypes.c_size_t()
            win, sec = ctypes.c_double(), ctypes.c_double()
            st = lib.grove_cascade_stage_stats(self.handle, s, *[ctypes.byref(x) for x in d],
                                               ctypes.byref(nw), ctypes.byref(neg),
                                               ctypes.byref(win), ctypes.byref(sec))
            if st != 0:
                return []
            out.append({"f": d[0].value, "d": d[1].value, "F": d[2].value, "D": d[3].value,
                        "features": nw.value, "negatives": neg.value, "windows": win.value,
                        "seconds": sec.value})
        return out

    def detect(self, image, scale_factor=1.1, min_neighbors=3, min_size=None, max_size=None,
               step=0, n_jobs=None):
        """Boxes (x, y, width, height, neighbours) as an (n, 5) int array: OpenCV's
        detectMultiScale on the same grey image and settings finds the same boxes."""
        img = _Image(image)
        mn = (ctypes.c_int * 2)(*min_size) if min_size else None
        mx = (ctypes.c_int * 2)(*max_size) if max_size else None
        boxes, n = _IP(), ctypes.c_size_t()
        check(lib.grove_cascade_detect(self.handle, img.handle, float(scale_factor),
                                       int(min_neighbors), mn, mx, int(step),
                                       0 if n_jobs is None or n_jobs < 0 else int(n_jobs),
                                       ctypes.byref(boxes), ctypes.byref(n), None))
        try:
            out = np.array([boxes[i] for i in range(n.value * 5)], dtype=np.int64).reshape(-1, 5)
        finally:
            lib.grove_boxes_free(boxes)
        return out

    def __del__(self):
        if getattr(self, "handle", None):
            lib.grove_cascade_free(self.handle)
            self.handle = None
