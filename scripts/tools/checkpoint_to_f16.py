#!/usr/bin/env python3
# scripts/tools/checkpoint_to_f16.py — rewrites a native checkpoint folder's model.safetensors with float16
# weights (what `train --f16` saves), for a folder whose run saved float32. Development-time tool:
# needs `pip install torch safetensors`; the workbench reads the result with its own loader.
#   scripts/tools/checkpoint_to_f16.py sample_data/mt_vanilla [more folders…]
import sys
from pathlib import Path

from safetensors.torch import load_file, save_file

for folder in sys.argv[1:]:
    path = Path(folder) / "model.safetensors"
    tensors = load_file(str(path))
    halved = {name: tensor.half() if tensor.is_floating_point() else tensor for name, tensor in tensors.items()}
    save_file(halved, str(path), metadata={"format": "pt"})
    print(f"{path}: {len(halved)} tensors now float16")
