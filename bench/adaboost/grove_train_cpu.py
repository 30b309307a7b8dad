#!/usr/bin/python3
"""CPU seconds of grove_train alone on a CSV file (libgrove through ctypes: the CLI's loader,
grove_dataset_load, then time.process_time around grove_train), to set beside scikit-learn's fit
CPU time from sk_adaboost.py: on a loaded machine, CPU time is the comparable number.

usage: grove_train_cpu.py TRAIN.csv ALGO ROUNDS THREADS
Prints one line: train_cpu_s train_wall_s
"""
import ctypes
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from grove import _lib  # noqa: E402  (build/libgrove.so of this tree, or GROVE_LIB)

lib, vp = _lib.lib, ctypes.c_void_p
lib.grove_dataset_load.restype = ctypes.c_int
lib.grove_dataset_load.argtypes = [ctypes.c_char_p, vp, vp, ctypes.POINTER(vp)]

path, algo, rounds, threads = sys.argv[1:5]
p, d, m = vp(), vp(), vp()
_lib.check(lib.grove_params_create(ctypes.byref(p)))
for k, v in (("algo", algo), ("base", "stump"), ("rounds", rounds), ("threads", threads)):
    _lib.check(lib.grove_params_set(p, k.encode(), v.encode()))
_lib.check(lib.grove_dataset_load(path.encode(), p, None, ctypes.byref(d)))
c0, t0 = time.process_time(), time.perf_counter()
_lib.check(lib.grove_train(d, None, p, ctypes.byref(m)))
print(f"{time.process_time() - c0:.3f} {time.perf_counter() - t0:.3f}")
