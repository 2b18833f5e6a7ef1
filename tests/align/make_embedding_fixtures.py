# Tiny .npy / .safetensors files written by numpy (and a by-the-spec safetensors writer, since the
# `safetensors` package is not installed) for tests/align/embeddings.test.ts. Run: /usr/bin/python3 tests/align/make_embedding_fixtures.py
import json, os, struct
import numpy as np

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fixtures')
os.makedirs(here, exist_ok=True)
p = lambda name: os.path.join(here, name)
rng = np.random.default_rng(0)

a32 = rng.standard_normal((3, 4)).astype(np.float32)
a64 = rng.standard_normal((2, 5))
stack = rng.standard_normal((2, 3, 4)).astype(np.float32)
np.save(p('f32.npy'), a32)
np.save(p('f64.npy'), a64)
np.save(p('stack.npy'), stack)
with open(p('v2.npy'), 'wb') as f:
    np.lib.format.write_array(f, a64, version=(2, 0))
np.save(p('fortran.npy'), np.asfortranarray(a64))
np.save(p('int.npy'), np.arange(6, dtype=np.int64).reshape(2, 3))
np.save(p('rank1.npy'), a64[0])
bad = a64.copy(); bad[1, 2] = np.nan
np.save(p('nan.npy'), bad)
inf = rng.standard_normal((4, 2)); inf[2, 0] = np.inf; inf[3, 1] = -np.inf
np.save(p('inf.npy'), inf)
with open(p('f32.npy'), 'rb') as f: raw = f.read()
with open(p('truncated.npy'), 'wb') as f: f.write(raw[:-5])
with open(p('f32.npy.ids.json'), 'w') as f: json.dump(['a', 'b', 'c'], f)

def save_safetensors(path, tensors, metadata=None):
    codes = {np.dtype('float32'): 'F32', np.dtype('float64'): 'F64', np.dtype('float16'): 'F16', np.dtype('int64'): 'I64'}
    header, blobs, off = {}, [], 0
    if metadata: header['__metadata__'] = metadata
    for name, t in tensors.items():
        b = np.ascontiguousarray(t).tobytes()
        header[name] = {'dtype': codes[t.dtype], 'shape': list(t.shape), 'data_offsets': [off, off + len(b)]}
        blobs.append(b); off += len(b)
    h = json.dumps(header).encode()
    h += b' ' * (-len(h) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(h))); f.write(h); f.write(b''.join(blobs))

half = rng.standard_normal((3, 2)).astype(np.float16)
save_safetensors(p('two.safetensors'), {'cls': a32, 'mean': a64, 'half': half, 'ids': np.arange(3)}, {'model': 'dinov2'})
save_safetensors(p('one.safetensors'), {'feats': a32})

json.dump({
    'f32': a32.astype(np.float64).ravel().tolist(), 'f64': a64.ravel().tolist(),
    'stack': stack.astype(np.float64).ravel().tolist(), 'half': half.astype(np.float64).ravel().tolist(),
}, open(p('expected.json'), 'w'))
