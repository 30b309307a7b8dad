"""Tests import the package from this source tree (python/grove), which finds the library in
build/ (or GROVE_LIB) without installing."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
