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
    assert ops.attention(q, k, k, causal=True, window=(16, 0), softcap=30.0).shape == q.shape
    assert ops.layernorm(fake(5, 7, 1031), fake(1031), fake(1031)).shape == (5, 7, 1031)
    assert ops.rmsnorm(fake(3, 4097), fake(4097)).shape == (3, 4097)
    assert ops.softmax(fake(2, 3, 151937, dtype=torch.float32)).dtype == torch.float32
    codes, scales = ops.mx_quantize(fake(65, 100))
    assert codes.shape == (65, 100) and scales.shape == (65, 4) and codes.dtype == torch.uint8
    codes, scales = ops.mx_quantize(fake(65, 100), columnwise=True)
    assert scales.shape == (3, 100)
    assert ops.mx_dequantize(codes, scales, columnwise=True).shape == (65, 100)
    assert ops.copy(fake(9, 3).t()).is_contiguous()
    labels = fake(3, 17, dtype=torch.int64)
    assert ops.linear_cross_entropy(fake(3, 17, 520), fake(50257, 520), labels).shape == ()
    per_row = ops.linear_cross_entropy(fake(3, 17, 520), fake(7, 520), labels.int(), reduction="none")
    assert per_row.shape == (3, 17) and per_row.dtype == torch.float32


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
    q, k, v = meta(2, 9, 4, 64), meta(2, 11, 2, 64), meta(2, 11, 2, 64)
    ops.attention(q, k, v, window=(3, 1), softcap=50.0).sum().backward()
    assert q.grad.shape == q.shape and k.grad.shape == k.shape and v.grad.shape == v.shape
    a, b = meta(7, 5), meta(5, 3)
    ops.matmul(a, b).sum().backward()
    assert a.grad.shape == a.shape and b.grad.shape == b.shape
    h, w = meta(2, 9, 64), meta(33, 64)
    ops.linear_cross_entropy(h, w, torch.empty(2, 9, dtype=torch.int64, device="meta"), reduction="sum").backward()
    assert h.grad.shape == h.shape and w.grad.shape == w.shape


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
    lambda: ops.attention(*[fake(1, 8, 4, 64)] * 3, window=(-2, 0)),
    lambda: ops.attention(*[fake(1, 8, 4, 64)] * 3, window=(4, -3)),
    lambda: ops.attention(*[fake(1, 8, 4, 64)] * 3, causal=True, window=(4, 2)),
    lambda: ops.attention(*[fake(1, 8, 4, 64)] * 3, window=(1, 2, 3)),
    lambda: ops.attention(*[fake(1, 8, 4, 64)] * 3, window="left"),
    lambda: ops.attention(*[fake(1, 8, 4, 64)] * 3, softcap=-1.0),
    lambda: ops.attention(*[fake(1, 8, 4, 64)] * 3, softcap=float("nan")),
    lambda: ops.attention(*[fake(1, 8, 4, 64)] * 3, softcap=float("inf")),
    lambda: torch.ops.sol.attention(*[fake(1, 8, 4, 64)] * 3, False, 0.0, -5, 0, 0.0),
    lambda: ops.rmsnorm(fake(4, 8), fake(7)),
    lambda: ops.layernorm(fake(4, 8), fake(8, dtype=torch.float32)),
    lambda: ops.softmax(fake(0, 8)),
    lambda: ops.softmax(fake(4, 8, dtype=torch.int64)),
    lambda: ops.mx_quantize(fake(4, 8, dtype=torch.float32)),
    lambda: ops.mx_quantize(fake(4, 8), elem="int4"),
    lambda: ops.mx_dequantize(fake(4, 64, dtype=torch.uint8), fake(4, 3, dtype=torch.uint8)),
    lambda: ops.explain("gemv", fake(4, 4)),
    lambda: ops.linear_cross_entropy(fake(4, 64), fake(7, 65), fake(4, dtype=torch.int64)),
    lambda: ops.linear_cross_entropy(fake(4, 64), fake(7, 64, dtype=torch.float16), fake(4, dtype=torch.int64)),
    lambda: ops.linear_cross_entropy(fake(4, 64, dtype=torch.float32), fake(7, 64, dtype=torch.float32),
                                     fake(4, dtype=torch.int64)),
    lambda: ops.linear_cross_entropy(fake(4, 64), fake(7, 64), fake(5, dtype=torch.int64)),
    lambda: ops.linear_cross_entropy(fake(4, 64), fake(7, 64), fake(4)),
    lambda: ops.linear_cross_entropy(fake(4, 64), fake(7, 64), fake(4, dtype=torch.int64), reduction="avg"),
    lambda: ops.linear_cross_entropy(fake(4, 64), fake(7, 64), fake(4, dtype=torch.int64), label_smoothing=2.0),
    lambda: ops.linear_cross_entropy(fake(4, 64), fake(7, 64), fake(4, dtype=torch.int64), chunk_rows=-1),
    lambda: ops.linear_cross_entropy(fake(4, 64, grad=True), fake(7, 64), fake(4, dtype=torch.int64), reduction="none"),
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


def test_opcheck_on_meta_tensors():
    # Schema, fake and autograd registration of every op, without a GPU (meta tensors run the fakes).
    x, w = meta(5, 96), meta(96)
    q, k = fake(1, 9, 2, 64, grad=True, device="meta"), fake(1, 11, 1, 64, grad=True, device="meta")
    for op, args in [(torch.ops.sol.matmul.default, (meta(5, 7), meta(7, 3), None)),
                     (torch.ops.sol.attention.default, (q, k, k, True, 0.0)),
                     (torch.ops.sol.attention.default, (q, k, k, True, 0.0, 4, 0, 30.0)),
                     (torch.ops.sol.layernorm.default, (x, w, w, 1e-5)),
                     (torch.ops.sol.rmsnorm.default, (x, w, 1e-6)),
                     (torch.ops.sol.layernorm_residual.default, (x, meta(5, 96), w, None, 1e-5)),
                     (torch.ops.sol.rmsnorm_residual.default, (x, meta(5, 96), w, 1e-6)),
                     (torch.ops.sol.softmax.default, (x,)),
                     (torch.ops.sol.mx_quantize.default, (fake(33, 64, device="meta"), "fp8_e4m3", "ceil", False)),
                     (torch.ops.sol.copy.default, (fake(5, 96, device="meta"),)),
                     (torch.ops.sol.linear_cross_entropy.default,
                      (meta(5, 96), meta(33, 96), torch.zeros(5, dtype=torch.int64, device="meta"), -100, 0.0, "mean",
                       0, True, True))]:
        torch.library.opcheck(op, args)


# ---- the eager path, without a GPU ------------------------------------------------------------------
class Launches:
    """sol._kernels' direct entries, recording each call; an entry asks once for `workspace` bytes."""

    def __init__(self, workspace=0):
        self.calls, self.workspace = [], workspace

    def __getattr__(self, name):
        def entry(*args):
            self.calls.append((name, args))
            return self.workspace if args[-3] < self.workspace else 0  # args[-3]: the workspace bytes given

        return entry

    def names(self):
        return [n for n, _ in self.calls]


@pytest.fixture
def cpu(monkeypatch):
    """sol.ops on CPU tensors as on CUDA ones: its device checks read is_cpu for is_cuda and the CPU
    as device 0, its devices and stream are the CPU's, and the launches go to a recording stub of
    sol._kernels."""
    import inspect

    cuda = [(".is_cuda", ".is_cpu"), (".get_device()", ".get_device() + 1")]  # the CPU as CUDA device 0
    cpu = [('torch.device("cuda", index)', 'torch.device("cpu")')]
    for name, edits in [("_direct", cuda), ("_cuda", cuda), ("_device", cpu)]:
        src = inspect.getsource(getattr(ops, name))
        for old, new in edits:
            assert old in src, f"sol.ops.{name} changed: update this fixture"
            src = src.replace(old, new)
        ns = {}
        exec(src, vars(ops), ns)
        monkeypatch.setattr(ops, name, ns[name])
    monkeypatch.setattr(ops, "_HAS_GPU", [True])
    monkeypatch.setattr(ops, "_DEVICES", {})
    monkeypatch.setattr(ops, "_raw_stream", lambda device: 7)
    launches = Launches()
    monkeypatch.setattr(ops, "_kernels", launches)
    return launches


def rstd_of(call):
    """The rstd pointer an rmsnorm_forward_direct call passed: 0 where nothing is saved for a backward,
    which only the eager path does (the custom op always saves it)."""
    name, args = call
    assert name == "rmsnorm_forward_direct"
    return args[9]


def test_an_eager_call_skips_the_custom_op(cpu):
    x, w = torch.randn(8, 64, dtype=BF16), torch.ones(64, dtype=BF16)
    y = ops.rmsnorm(x, w)
    assert y.shape == x.shape and y.dtype == BF16 and y.is_contiguous()
    ((name, args),) = cpu.calls
    assert name == "rmsnorm_forward_direct" and rstd_of(cpu.calls[0]) == 0
    assert args[:3] == ("bf16", 8, 64) and args[3] == x.data_ptr() and args[5] == y.data_ptr()
    assert args[-4:] == (0, 0, 7, 0)  # no workspace, the current stream, the tensors' device
    with torch.no_grad():  # a gradient is not recorded here, so a parameter is no reason for the op
        ops.rmsnorm(x.requires_grad_(), torch.nn.Parameter(w))
    assert rstd_of(cpu.calls[1]) == 0


def test_fp8_codes_go_to_the_same_launch(cpu):
    """fp8_scale: the e4m3 codes' buffer, pitch and scale at the end of the same launch, y not
    written; refused under autograd and for a scale that is not one fp32 element."""
    x, h, w = torch.randn(8, 64, dtype=BF16), torch.randn(8, 64, dtype=BF16), torch.ones(64, dtype=BF16)
    scale = torch.tensor([100.0])
    codes = ops.rmsnorm(x, w, fp8_scale=scale)
    ((name, args),) = cpu.calls
    assert name == "rmsnorm_forward_direct" and args[5] == 0  # y not written
    assert args[14:17] == (codes.data_ptr(), 64, scale.data_ptr())
    assert codes.dtype == torch.float8_e4m3fn and codes.shape == x.shape
    codes, s = ops.layernorm(x, w, residual=h, fp8_scale=scale)
    name, args = cpu.calls[1]
    assert name == "layernorm_forward_direct" and args[12:19] == (h.data_ptr(), 64, s.data_ptr(), 64, codes.data_ptr(),
                                                                  64, scale.data_ptr())
    ops.rmsnorm(x, w)
    assert cpu.calls[2][1][14:17] == (0, 0, 0)  # no codes asked: none passed
    with pytest.raises(sol.Error, match="one-element fp32"):
        ops.rmsnorm(x, w, fp8_scale=torch.tensor([1.0, 2.0]))
    with pytest.raises(sol.Error, match="no gradient"):
        ops.rmsnorm(x.float().requires_grad_(), w.float(), fp8_scale=scale)


def test_a_call_that_records_a_gradient_goes_through_the_op(cpu):
    x, w = torch.randn(8, 64, requires_grad=True), torch.ones(64, requires_grad=True)
    y = ops.rmsnorm(x, w)
    assert rstd_of(cpu.calls[0]) != 0 and y.requires_grad
    y.sum().backward()  # the backward's own launch is eager: nothing records its gradient
    assert cpu.names() == ["rmsnorm_forward_direct", "rmsnorm_backward_direct"]
    assert x.grad.shape == x.shape and w.grad.shape == w.shape


def test_the_residual_add_goes_to_the_same_launch(cpu):
    """rmsnorm(x, w, residual=h): one launch with h and the sum it writes; under autograd the
    backward runs on the sum, and x and h get one gradient."""
    x, h, w = torch.randn(8, 64, dtype=BF16), torch.randn(8, 64, dtype=BF16), torch.ones(64, dtype=BF16)
    y, s = ops.rmsnorm(x, w, residual=h)
    ((name, args),) = cpu.calls
    assert name == "rmsnorm_forward_direct" and args[10:14] == (h.data_ptr(), 64, s.data_ptr(), 64)
    assert y.shape == s.shape == x.shape
    x, h = x.float().requires_grad_(), h.float().requires_grad_()
    y, s = ops.rmsnorm(x, w.float(), residual=h)
    assert rstd_of(cpu.calls[1]) != 0
    y.sum().backward()
    assert cpu.names()[1:] == ["rmsnorm_forward_direct", "rmsnorm_backward_direct"]
    assert cpu.calls[2][1][3] == s.data_ptr()  # the backward's x is the sum
    assert x.grad.shape == h.grad.shape == x.shape
    ops.layernorm(x.detach(), residual=h.detach())
    assert cpu.names()[-1] == "layernorm_forward_direct"
    with pytest.raises(sol.Error, match="residual must be"):
        ops.rmsnorm(x.detach(), residual=h.detach().to(BF16))


def test_modes_transforms_and_compile_go_through_the_op(cpu):
    x = torch.randn(8, 64)
    with torch.device("cpu"):  # a torch-function mode
        ops.rmsnorm(x)
    assert rstd_of(cpu.calls[-1]) != 0
    with FakeTensorMode():  # a dispatch mode: the fake runs, nothing launches
        ops.rmsnorm(torch.empty(8, 64))
    assert len(cpu.calls) == 1
    seen = []
    torch.vmap(lambda t: (seen.append(ops._direct(t)), t)[1])(torch.randn(3, 4))
    with torch.autograd.forward_ad.dual_level():
        seen.append(ops._direct(x))
    assert seen == [-1, -1] and ops._direct(x) == 0
    compiled = torch.compile(lambda t: ops.rmsnorm(t) * 2, fullgraph=True, backend="eager")
    assert compiled(x).shape == x.shape
    assert rstd_of(cpu.calls[-1]) != 0  # the traced graph calls torch.ops.sol.rmsnorm


def test_the_eager_path_asks_for_its_workspace(cpu):
    cpu.workspace = 4096
    a, b = torch.randn(8, 64, dtype=BF16), torch.randn(32, 64, dtype=BF16).t()
    assert ops.matmul(a, b).shape == (8, 32)
    (n1, first), (n2, second) = cpu.calls
    assert n1 == n2 == "matmul_direct" and first[-4:-2] == (0, 0)
    assert second[-3] == 4096 and second[-4] != 0 and first[:-4] == second[:-4]
    assert first[6:8] == ("N", "T") and first[9] == 64 and first[11] == 64  # x @ w.t(): B transposed, ld 64


def test_fp8_matmul_takes_both_scales_and_nothing_else_does(cpu):
    e4m3 = torch.float8_e4m3fn
    a, b = torch.randn(8, 64).to(e4m3), torch.randn(32, 64).to(e4m3).t()
    sa, sb = torch.tensor(0.5), torch.tensor(2.0)
    c = ops.matmul(a, b, scale_a=sa, scale_b=sb)
    assert c.shape == (8, 32) and c.dtype == BF16
    ((name, args),) = cpu.calls
    assert name == "matmul_direct" and args[3:6] == ("fp8_e4m3", "fp8_e4m3", "bf16")
    assert args[14:16] == (sa.data_ptr(), sb.data_ptr())
    ops.matmul(a.to(BF16), b.to(BF16))
    assert cpu.calls[-1][1][14:16] == (0, 0)  # no scales outside fp8
    for call, text in [(lambda: ops.matmul(a, b), "needs scale_a and scale_b"),
                       (lambda: ops.matmul(a, b, scale_b=sb), "needs scale_a and scale_b"),
                       (lambda: ops.matmul(a, b, scale_a=sa.double(), scale_b=sb), "scale_a must be a one-element fp32"),
                       (lambda: ops.matmul(a, b, scale_a=sa, scale_b=torch.ones(2)), "scale_b must be a one-element fp32"),
                       (lambda: ops.matmul(a.to(BF16), b.to(BF16), scale_a=sa, scale_b=sb), "apply to fp8")]:
        with pytest.raises(sol.Error, match=text):
            call()
    with FakeTensorMode():  # the op's fake: bf16 out, the same checks
        fa, fb = torch.empty(8, 64, dtype=e4m3), torch.empty(64, 32, dtype=e4m3)
        assert ops.matmul(fa, fb, scale_a=torch.ones(()), scale_b=torch.ones(1)).dtype == BF16
        with pytest.raises(sol.Error, match="needs scale_a"):
            ops.matmul(fa, fb)


def test_explain_gives_the_call_as_a_registry_shape(cpu):
    for entry in ("matmul", "attention_forward", "rmsnorm_forward", "softmax_forward"):
        setattr(cpu, f"explain_{entry}_direct", lambda *args: {"implementation": "x/y"})
    x = torch.randn(6, 5, 40, dtype=BF16)
    assert ops.explain("rmsnorm", x, torch.ones(40, dtype=BF16))["shape"] == "rows=30,cols=40"
    assert ops.explain("softmax", x)["shape"] == "rows=30,cols=40"
    a = torch.randn(8, 64, dtype=BF16)
    assert ops.explain("matmul", a, torch.randn(32, 64, dtype=BF16).t())["shape"] == "m=8,n=32,k=64"
    assert ops.explain("matmul", a, torch.randn(64, 32, dtype=BF16))["shape"] == "m=8,n=32,k=64,tb=0"
    q, kv = torch.randn(2, 7, 8, 64, dtype=torch.float16), torch.randn(2, 9, 2, 64, dtype=torch.float16)
    assert ops.explain("attention", q, kv, kv, causal=True)["shape"] == "b=2,h=8,n=7,d=64,hkv=2,nk=9,causal=1,fp16=1"
    q = torch.randn(1, 16, 4, 128, dtype=BF16)
    assert ops.explain("attention", q, q, q)["shape"] == "b=1,h=4,n=16,d=128"
    assert ops.explain("attention", q, q, q, causal=True, window=(8, 0), softcap=30.0)["shape"] == \
        "b=1,h=4,n=16,d=128,causal=1,wl=8,softcap=30"
    assert ops.explain("attention", q, q, q, window=(3, 5))["shape"] == "b=1,h=4,n=16,d=128,wl=3,wr=5"


def test_the_eager_path_says_what_the_op_says(cpu):
    x, w = torch.randn(4, 8, dtype=BF16), torch.ones(7, dtype=BF16)
    with pytest.raises(sol.Error) as eager:
        ops.rmsnorm(x, w)
    with pytest.raises(sol.Error) as op:
        ops.rmsnorm(x.requires_grad_(), w)
    assert str(eager.value) == str(op.value) and "\n" not in str(op.value)
    assert cpu.calls == []


def test_broadcast_rows_are_copied_not_read_as_packed(cpu):
    """A row op's input with a row stride of 0 (expand) or rows closer than their length: the API
    reads a pitch of 0 as packed, so such rows go as a packed copy, never as pitch 0."""
    cols = 64
    x = torch.randn(cols, dtype=BF16).expand(8, 16, cols)
    ops.softmax(x)
    name, args = cpu.calls[-1]
    assert name == "softmax_forward_direct" and args[1:3] == (128, cols) and args[4] == cols
    assert args[3] != x.data_ptr()  # a copy
    h = torch.randn(cols, dtype=BF16).expand(8, cols)
    ops.rmsnorm(torch.randn(8, cols, dtype=BF16), residual=h)
    name, args = cpu.calls[-1]
    assert name == "rmsnorm_forward_direct" and args[11] == cols  # the residual's pitch
    windows = torch.randn(200, dtype=BF16).as_strided((8, cols), (16, 1))  # overlapping rows
    ops.layernorm(windows)
    assert cpu.calls[-1][1][4] == cols


def test_attention_passes_strides_the_api_can_address(cpu):
    """K and V broadcast over batch, sequence and heads (strides 0, which the API reads as packed)
    go as packed copies; a dimension of extent 1 goes with torch's stride, whatever it is (the API
    never steps over it); the backward, which serves packed BSHD only, gets packed copies of strided
    q, k, v (a fused QKV projection's)."""
    b, n, h, d = 2, 8, 4, 64
    q = torch.randn(b, n, h, d, dtype=BF16)
    kv = torch.randn(d, dtype=BF16).expand(b, n, h, d)
    ops.attention(q, kv, kv)
    name, args = cpu.calls[-1]
    assert name == "attention_forward_direct"
    assert args[18] == args[19] == (n * h * d, h * d, d, 1)  # k's and v's strides: packed copies
    decode = torch.randn(b, h, 1, d, dtype=BF16).transpose(1, 2)  # [b, 1, h, d], seq stride d
    ops.attention(decode, q, q)
    assert cpu.calls[-1][1][17] == decode.stride() == (h * d, d, d, 1)
    qkv = torch.randn(b, n, 3, h, d, dtype=BF16, requires_grad=True)
    q3, k3, v3 = qkv.unbind(2)
    o = ops.attention(q3, k3, v3)
    assert cpu.calls[-1][1][17] == (n * 3 * h * d, 3 * h * d, d, 1)  # the forward reads the view
    o.float().sum().backward()
    name, args = cpu.calls[-1]
    assert name == "attention_backward_direct"
    assert all(s == (n * h * d, h * d, d, 1) for s in args[17:21] + args[25:29])
    assert qkv.grad.shape == qkv.shape


def test_attention_passes_the_window_and_softcap_both_ways(cpu):
    """window=(left, right) and softcap reach the forward's and the backward's entries, after the
    scale (no window: -1, -1; no softcap: 0)."""
    q = torch.randn(2, 8, 4, 64, dtype=BF16, requires_grad=True)
    ops.attention(q, q, q)
    assert cpu.calls[-1][1][7:12] == (False, 0.0, -1, -1, 0.0)
    o = ops.attention(q, q, q, causal=True, window=(5, 0), softcap=30)
    name, args = cpu.calls[-1]
    assert name == "attention_forward_direct" and args[7:12] == (True, 0.0, 5, 0, 30.0)
    o.float().sum().backward()
    name, args = cpu.calls[-1]
    assert name == "attention_backward_direct" and args[7:12] == (True, 0.0, 5, 0, 30.0)


def test_layernorm_backward_without_parameters_returns_distinct_tensors(cpu):
    """No weight and no bias: the op's two empty gradients must be two tensors (a custom op's
    outputs may not alias), or torch.compile and double backward refuse them."""
    x, dy = torch.randn(8, 64), torch.randn(8, 64)
    _, mean, rstd = torch.ops.sol.layernorm(x, None, None, 1e-5)
    dx, dw, db = torch.ops.sol.layernorm_backward(x, dy, None, mean, rstd, False)
    assert dx.shape == x.shape and dw.numel() == db.numel() == 0 and dw is not db


def test_a_dlpack_array_with_negative_strides_goes_as_a_packed_copy():
    """torch's DLPack import aborts the process on negative strides (pytorch/pytorch#188023): a
    flipped NumPy (or CuPy) array goes as a packed copy of itself, any other such array is refused."""
    np = pytest.importorskip("numpy")
    flipped = np.arange(12.0, dtype=np.float32).reshape(3, 4)[::-1]
    t = ops._to_torch(flipped)
    assert t.is_contiguous() and t.tolist() == flipped.tolist()

    class Flipped:  # a DLPack producer sol cannot copy
        __module__ = "somelib.arrays"
        strides = (-16, 4)

        def __dlpack__(self, stream=None):
            raise AssertionError("never imported")

    with pytest.raises(sol.Error, match="negative strides"):
        ops._to_torch(Flipped())


def test_linear_cross_entropy_launches_once_and_scales_its_saved_gradients(cpu):
    """One launch: the loss alone without a gradient to record; dh and dW from the same launch where one
    is recorded, the backward multiplying them by the upstream gradient (no launch of its own)."""
    h, w = torch.randn(2, 5, 64, dtype=BF16), torch.randn(33, 64, dtype=BF16)
    labels = torch.randint(0, 33, (2, 5))
    loss = ops.linear_cross_entropy(h, w, labels, label_smoothing=0.1)
    ((name, args),) = cpu.calls
    assert name == "linear_cross_entropy_direct" and loss.shape == () and loss.dtype == torch.float32
    assert args[:9] == ("bf16", 10, 64, 33, h.data_ptr(), 64, w.data_ptr(), 64, labels.data_ptr())
    assert args[9:13] == ("int64", -100, pytest.approx(0.1), "mean") and args[14] == 0 and args[15] == loss.data_ptr()
    assert args[16] == 0 and args[18] == 0 and args[20:23] == ("bf16", False, 0)  # no dh, no dW
    per_row = ops.linear_cross_entropy(h, w, labels.int(), reduction="none", chunk_rows=3)
    args = cpu.calls[1][1]
    assert per_row.shape == (2, 5) and args[9] == "int32" and args[12] == "sum" and args[22] == 3
    assert args[14] == per_row.data_ptr() and args[15] == 0
    hg, wg = h.clone().requires_grad_(), w.clone().requires_grad_()
    loss = ops.linear_cross_entropy(hg, wg, labels, reduction="sum")
    args = cpu.calls[2][1]
    assert args[16] != 0 and args[18] != 0  # dh and dW written by the forward
    (2.0 * loss).backward()
    assert len(cpu.calls) == 3 and hg.grad.shape == h.shape and wg.grad.shape == w.shape
    ops.linear_cross_entropy(h, w.clone().requires_grad_(), labels)
    assert cpu.calls[3][1][16] == 0 and cpu.calls[3][1][18] != 0  # a frozen h: dW alone


def test_an_empty_product_launches_nothing(cpu):
    """m, n or k of 0 (a mixture-of-experts expert that got no tokens): the product is empty, or
    zeros where only k is 0, and nothing is launched."""
    w = torch.randn(64, 32, dtype=BF16)
    assert ops.matmul(torch.empty(0, 64, dtype=BF16), w).shape == (0, 32)
    zeros = ops.matmul(torch.empty(8, 0, dtype=BF16), torch.empty(0, 32, dtype=BF16))
    assert zeros.shape == (8, 32) and not zeros.any()
    assert cpu.calls == []
    ops.matmul(torch.randn(8, 64, dtype=BF16), w)
    assert cpu.names() == ["matmul_direct"]
