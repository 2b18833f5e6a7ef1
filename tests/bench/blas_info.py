"""What BLAS the Python references run on: the OpenBLAS library numpy loaded, its kernel (core name) and thread count,
torch's own parallel settings when torch is there. Printed as one JSON line; the bench stores it beside its numbers."""
import ctypes
import json
import os

import numpy as np

np.dot(np.ones((2, 2)), np.ones((2, 2)))  # loads the BLAS numpy links against
libs = sorted({line.split()[-1] for line in open("/proc/self/maps") if "blas" in line.split()[-1].lower()})
info = {"numpy": np.__version__, "blasLibraries": libs, "env": {k: v for k, v in os.environ.items() if k.startswith(("OPENBLAS_", "OMP_"))}}
for path in libs:
    lib = ctypes.CDLL(path)
    if hasattr(lib, "openblas_get_corename"):
        lib.openblas_get_corename.restype = ctypes.c_char_p
        lib.openblas_get_config.restype = ctypes.c_char_p
        info["openblas"] = {
            "library": path,
            "kernel": lib.openblas_get_corename().decode(),
            "config": lib.openblas_get_config().decode(),
            "threads": lib.openblas_get_num_threads(),
        }
        break
try:
    import torch

    info["torch"] = {"version": torch.__version__, "threads": torch.get_num_threads(), "blas": torch.__config__.show().split("BLAS_INFO=")[-1].split(",")[0]}
except ImportError:
    pass
print(json.dumps(info))
