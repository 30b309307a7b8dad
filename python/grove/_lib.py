"""ctypes declarations of libgrove (include/grove.h) and the one error rule.

Where the library is found, first match wins:
  1. the environment variable GROVE_LIB (a path to libgrove.so);
  2. libgrove.so inside this package (an installed package bundles it);
  3. build/libgrove.so of the source tree this package sits in (python/grove -> ../../build),
     so tests run from a build tree without installing.
ctypes releases the GIL around every call into a CDLL, so training and prediction run without
the GIL and several Python threads may predict with one model at once.
"""
import ctypes
import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def _find_library():
    env = os.environ.get("GROVE_LIB")
    candidates = [env] if env else []
    candidates.append(os.path.join(_HERE, "libgrove.so"))
    candidates.append(os.path.join(_HERE, "..", "..", "build", "libgrove.so"))
    for path in candidates:
        if path and os.path.exists(path):
            return os.path.abspath(path)
    raise ImportError("grove: libgrove.so not found (looked at %s); build it with cmake or set "
                      "GROVE_LIB" % ", ".join(p for p in candidates if p))


LIB_PATH = _find_library()
lib = ctypes.CDLL(LIB_PATH)

_vp = ctypes.c_void_p
_sz = ctypes.c_size_t
_cp = ctypes.c_char_p
_dp = ctypes.POINTER(ctypes.c_double)
_int = ctypes.c_int


def _decl(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)
    return fn


_status = ctypes.c_int
_decl("grove_last_error", _cp)
_decl("grove_version", _cp)
_decl("grove_status_str", _cp, _int)
_decl("grove_params_create", _status, ctypes.POINTER(_vp))
_decl("grove_params_free", None, _vp)
_decl("grove_params_set", _status, _vp, _cp, _cp)
_decl("grove_params_get", _status, _vp, _cp, ctypes.c_char_p, _sz)
PROGRESS_FN = ctypes.CFUNCTYPE(_int, _vp, _cp, _sz, _sz)
ROUND_FN = ctypes.CFUNCTYPE(_int, _vp, _sz, _sz, _cp, ctypes.c_double, ctypes.c_double)
_decl("grove_params_set_progress", _status, _vp, PROGRESS_FN, _vp)
_decl("grove_params_set_round_callback", _status, _vp, ROUND_FN, _vp)
_decl("grove_dataset_from_strided", _status, _vp, _int, _sz, _sz, _sz, _sz, _dp, _dp, _dp, _vp,
      _vp, ctypes.POINTER(_vp))
_decl("grove_dataset_from_csr", _status, _vp, _int, _vp, _vp, _sz, _sz, _dp, _dp, _vp, _vp,
      ctypes.POINTER(_vp))
_decl("grove_dataset_set_feature", _status, _vp, _sz, _cp, ctypes.POINTER(_cp), _sz)
_decl("grove_dataset_set_classes", _status, _vp, ctypes.POINTER(_cp), _sz, _cp)
_decl("grove_dataset_set_queries", _status, _vp, ctypes.POINTER(ctypes.c_double), _sz)
_decl("grove_dataset_n_queries", _sz, _vp)
_decl("grove_dataset_free", None, _vp)
_decl("grove_dataset_schema", _vp, _vp)
_decl("grove_schema_task", _int, _vp)
_decl("grove_schema_n_classes", _sz, _vp)
_decl("grove_schema_class_name", _cp, _vp, _sz)
_decl("grove_schema_n_features", _sz, _vp)
_decl("grove_schema_feature_name", _cp, _vp, _sz)
_decl("grove_schema_is_categorical", _int, _vp, _sz)
_decl("grove_schema_n_columns", _sz, _vp)
_decl("grove_schema_feature_column", _sz, _vp, _sz)
_decl("grove_train", _status, _vp, _vp, _vp, ctypes.POINTER(_vp))
_decl("grove_train_continue", _status, _vp, _vp, _vp, _vp, ctypes.POINTER(_vp))
_decl("grove_model_free", None, _vp)
_decl("grove_model_schema", _vp, _vp)
_decl("grove_model_algo", _cp, _vp)
_decl("grove_model_n_outputs", _sz, _vp)
_decl("grove_model_n_rounds", _sz, _vp)
_decl("grove_model_predict", _status, _vp, _vp, _int, _dp, _sz)
_decl("grove_model_predict_label", _status, _vp, _vp, _int, _dp, _sz)
_decl("grove_model_predict_rounds", _status, _vp, _vp, _sz, _int, _dp, _sz)
_decl("grove_model_margins", _status, _vp, _vp, _int, _dp, _sz)
_decl("grove_model_rank_metric", _status, _vp, _vp, _cp, _sz, _int, _dp, _dp)
_decl("grove_model_contrib_groups", _status, _vp, ctypes.POINTER(_sz))
_decl("grove_model_predict_contrib", _status, _vp, _vp, _int, _int, _dp, _sz)
_decl("grove_model_predict_margin", _status, _vp, _vp, _int, _dp, _sz)
_decl("grove_model_log_csv", _status, _vp, ctypes.POINTER(ctypes.c_void_p))
_decl("grove_model_oob", _status, _vp, _dp, ctypes.POINTER(_sz))
_decl("grove_model_save", _status, _vp, _cp)
_decl("grove_model_load", _status, _cp, ctypes.POINTER(_vp))
_decl("grove_model_to_buffer", _status, _vp, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(_sz))
_decl("grove_model_from_buffer", _status, _vp, _sz, ctypes.POINTER(_vp))
_decl("grove_model_convert_buffer", _status, _cp, _vp, _sz, ctypes.POINTER(_vp))
_decl("grove_model_info_json", _status, _vp, ctypes.POINTER(ctypes.c_void_p))
_decl("grove_model_dump", _status, _vp, _cp, ctypes.POINTER(ctypes.c_void_p))
_decl("grove_string_free", None, _vp)
_decl("grove_model_importance", _status, _vp, _cp, _vp, ctypes.c_uint64, _int, _dp, _sz)
_decl("grove_biasvar", _status, _vp, _vp, _vp, _sz, ctypes.POINTER(ctypes.c_void_p))

GROVE_ERR_ARG, GROVE_ERR_PARAM, GROVE_ERR_IO, GROVE_ERR_NOMEM = 1, 2, 3, 7


class GroveError(ValueError):
    """A failure reported by libgrove: `status` is the grove_status code, the message is the
    library's (it names the place: a parameter, a row and feature, a file and line)."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def check(status):
    """Raises the library's last error when `status` is not GROVE_OK.  Input, parameter, model
    and data errors are ValueError (GroveError); I/O errors OSError; no memory MemoryError."""
    if status == 0:
        return
    msg = (lib.grove_last_error() or b"").decode("utf-8", "replace")
    if not msg:
        msg = lib.grove_status_str(status).decode()
    if status == GROVE_ERR_IO:
        raise OSError(msg)
    if status == GROVE_ERR_NOMEM:
        raise MemoryError(msg)
    raise GroveError(status, msg)


def take_string(ptr):
    """Copies a library-allocated NUL-terminated string and frees it."""
    try:
        return ctypes.string_at(ptr).decode("utf-8")
    finally:
        lib.grove_string_free(ptr)


def version():
    return lib.grove_version().decode()
