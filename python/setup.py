"""Builds the grove package with libgrove bundled inside it.

`/usr/bin/python3 -m pip install --no-index --no-build-isolation ./python` from a checkout runs
CMake on the checkout (Release, into build-python/ beside python/) and copies the shared
library into the package, so the installed package works without the source tree.
GROVE_LIB=/path/to/libgrove.so bundles an existing library instead.  The version is the
library's (GROVE_VERSION_STRING in include/grove.h).  Only Debian's python3-setuptools,
python3-wheel, python3-pip and cmake are needed.
"""
import os
import re
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def version():
    with open(os.path.join(ROOT, "include", "grove.h")) as f:
        return re.search(r'#define GROVE_VERSION_STRING "([^"]+)"', f.read()).group(1)


def build_library():
    lib = os.environ.get("GROVE_LIB")
    if lib:
        return os.path.realpath(lib)
    build = os.path.join(ROOT, "build-python")
    subprocess.check_call(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release"])
    subprocess.check_call(["cmake", "--build", build, "--target", "grove_shared", "-j",
                           str(os.cpu_count() or 1)])
    return os.path.realpath(os.path.join(build, "libgrove.so"))


class BuildPyWithLibrary(build_py):
    def run(self):
        super().run()
        dest = os.path.join(self.build_lib, "grove", "libgrove.so")
        shutil.copyfile(build_library(), dest)


setup(
    name="grove",
    version=version(),
    description="Ensemble learning (AdaBoost and its theory, bagging, forests, gradient "
                "boosting, stacking, voting): scikit-learn estimators over libgrove",
    packages=["grove"],
    package_data={"grove": ["libgrove.so"]},
    python_requires=">=3.9",
    cmdclass={"build_py": BuildPyWithLibrary},
    zip_safe=False,
)
