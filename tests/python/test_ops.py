"""sol.ops without a GPU: `import sol` without torch, the fake (meta) implementations' shapes, the
argument checks, tracing through the ops, and the clean sol.Error of a GPU op with no GPU. The
kernels themselves run in test_ops_gpu.py. Skipped where torch is not installed (CI)."""
import pathlib
import sys

import pytest

import sol


torch = pytest.importorskip("torch", reason="torch is not installed: sol.ops is not testable here")
ops = pytest.importorskip("sol.ops")
from torch._subclasses.fake_tensor import FakeTensorMode  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench" / "python"))
import llama  # noqa: E402  (the Llama-style block, shared with the GPU tests and the benchmark)

BF16 = torch.bfloat16


def fake(*shape, dtype=BF16, grad=False, device="cuda"):
    return torch.empty(*shape, dtype=dtype, device=device, requires_grad=grad)


def meta(*shape):
    """A meta tensor that wants a gradient: the autograd engine runs the backward fakes on it
    (fake CUDA tensors would need a CUDA context for backward)."""
    return fake(*shape, grad=True, device="meta")


@pytest.fixture
def mode():
    with FakeTensorMode():
        yield


def test_fake_shapes(mode):
    assert ops.matmul(fake(33, 65), fake(65, 17)).shape == (33, 17)
    assert ops.matmul(fake(33, 65), fake(17, 65).t(), out_dtype="fp32").dtype == torch.float32
    assert ops.matmul(fake(65, 33).t(), fake(65, 17)).shape == (33, 17)
    q, k = fake(3, 37, 8, 128), fake(3, 19, 2, 128)
    assert ops.attention(q, k, k, causal=True).shape == q.shape
    assert ops.layernorm(fake(5, 7, 1031), fake(1031), fake(1031)).shape == (5, 7, 1031)
    assert ops.rmsnorm(fake(3, 4097), fake(4097)).shape == (3, 4097)
    assert ops.softmax(fake(2, 3, 151937, dtype=torch.float32)).dtype == torch.float32
    codes, scales = ops.mx_quantize(fake(65, 100))
    assert codes.shape == (65, 100) and scales.shape == (65, 4) and codes.dtype == torch.uint8
    codes, scales = ops.mx_quantize(fake(65, 100), columnwise=True)
    assert scales.shape == (3, 100)
    assert ops.mx_dequantize(codes, scales, columnwise=True).shape == (65, 100)
    assert ops.copy(fake(9, 3).t()).is_contiguous()


def test_fake_gradients():
    x, w = meta(6, 257), meta(257)
    ops.rmsnorm(x, w).sum().backward()
    assert x.grad.shape == x.shape and w.grad.shape == w.shape
    x, w, b = meta(6, 257), meta(257), meta(257)
    ops.layernorm(x, w, b).sum().backward()
    assert b.grad.shape == (257,) and w.grad.shape == (257,)
    x = meta(4, 33)
    ops.softmax(x).sum().backward()
    assert x.grad.shape == x.shape
    q, k, v = meta(2, 9, 4, 64), meta(2, 11, 2, 64), meta(2, 11, 2, 64)
    ops.attention(q, k, v).sum().backward()
    assert q.grad.shape == q.shape and k.grad.shape == k.shape and v.grad.shape == v.shape
    a, b = meta(7, 5), meta(5, 3)
    ops.matmul(a, b).sum().backward()
    assert a.grad.shape == a.shape and b.grad.shape == b.shape


def test_a_block_traces_through_the_ops():
    from torch.fx.experimental.proxy_tensor import make_fx

    s = llama.Shape(batch=2, seq=17, d_model=256, heads=4, kv_heads=2, ffn=512)
    with FakeTensorMode():
        x, w = fake(2, 17, 256), llama.weights(s, grad=False)

        def traced(x, *w):
            return llama.sol_block(s, x, list(w))

        graph = make_fx(traced, tracing_mode="fake")(x, *w)
    names = [str(n.target) for n in graph.graph.nodes if n.op == "call_function"]
    assert names.count("sol.rmsnorm.default") == 2 and names.count("sol.attention.default") == 1
    assert names.count("sol.matmul.default") == 7


@pytest.mark.parametrize("call", [
    lambda: ops.matmul(fake(3, 4), fake(5, 6)),
    lambda: ops.matmul(fake(3, 4), fake(4, 6, dtype=torch.float16)),
    lambda: ops.matmul(fake(3, 4, 5), fake(5, 6)),
    lambda: ops.matmul(fake(3, 4, dtype=torch.int32), fake(4, 6, dtype=torch.int32)),
    lambda: ops.matmul(fake(3, 4), fake(4, 6), out_dtype="fp64"),
    lambda: ops.matmul(fake(4, 4, 4)[:, :, 0], fake(4, 6)),
    lambda: ops.attention(fake(1, 8, 4, 96), fake(1, 8, 4, 96), fake(1, 8, 4, 96)),
    lambda: ops.attention(fake(1, 8, 4, 64), fake(1, 8, 3, 64), fake(1, 8, 3, 64)),
    lambda: ops.attention(fake(1, 8, 4, 64), fake(1, 8, 4, 64), fake(1, 9, 4, 64)),
    lambda: ops.attention(fake(1, 8, 4, 64, dtype=torch.float32), *[fake(1, 8, 4, 64, dtype=torch.float32)] * 2),
    lambda: ops.attention(fake(8, 4, 64), fake(8, 4, 64), fake(8, 4, 64)),
    lambda: ops.rmsnorm(fake(4, 8), fake(7)),
    lambda: ops.layernorm(fake(4, 8), fake(8, dtype=torch.float32)),
    lambda: ops.softmax(fake(0, 8)),
    lambda: ops.softmax(fake(4, 8, dtype=torch.int64)),
    lambda: ops.mx_quantize(fake(4, 8, dtype=torch.float32)),
    lambda: ops.mx_quantize(fake(4, 8), elem="int4"),
    lambda: ops.mx_dequantize(fake(4, 64, dtype=torch.uint8), fake(4, 3, dtype=torch.uint8)),
    lambda: ops.explain("gemv", fake(4, 4)),
], ids=lambda c: "")
def test_bad_arguments_are_sol_errors(mode, call):
    with pytest.raises(sol.Error) as e:
        call()
    assert "\n" not in str(e.value)


def test_not_a_tensor():
    with pytest.raises(sol.Error, match="DLPack"):
        ops.softmax([1.0, 2.0])


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is present: test_ops_gpu.py runs the ops")
def test_a_gpu_op_without_a_gpu_says_why():
    x = torch.randn(4, 64, dtype=BF16)
    for call in (lambda: ops.rmsnorm(x), lambda: ops.softmax(x), lambda: ops.matmul(x, x.t()),
                 lambda: ops.explain("rmsnorm", x)):
        with pytest.raises(sol.Error) as e:
            call()
        text = str(e.value)
        assert ("CUDA" in text or "GPU" in text) and "\n" not in text


def test_dlpack_producers_are_accepted():
    np = pytest.importorskip("numpy")
    x = np.ones((4, 64), dtype=np.float32)  # a DLPack producer on the host: converted, then refused there
    with pytest.raises(sol.Error, match="CUDA|GPU"):
        ops.softmax(x)
