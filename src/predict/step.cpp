// A transformer step predicted as the kernels it launches (include/sol/predict.hpp, "a transformer
// step"): kernels/transformer/stack.cu's forward and backward of one layer, op by op, each the
// registry variant it calls with that variant's declared cost, or the stack's own small kernels
// (the elementwise chain, the bf16 transpose, pitched copies) from the cost model. Each op is
// predicted like any measured record (predict()), so the step inherits the terms of its kernels:
// tile and wave quantization of the 1024-wide GEMMs, mma.sync's share in the flash kernels, the
// det=1 backward's dQ pass, one launch per kernel.
#include <utility>

#include "sol/core/error.hpp"
#include "sol/predict.hpp"

namespace sol::predict {

namespace {

constexpr const char* kGemmFamily = "gemm_bf16";
constexpr const char* kGemmVariant = "v08_tile_choice";  // Stack::Impl::mm
constexpr const char* kDtype = "bf16";

Shape shape_of(std::initializer_list<std::pair<const char*, int64_t>> dims) {
  std::string text;
  for (const auto& [k, v] : dims) {
    if (!text.empty()) text += ',';
    text += k;
    text += '=';
    text += std::to_string(v);
  }
  return Shape::parse(text);
}

StepOp make(std::string name, const std::string& family, const std::string& variant, const Shape& shape,
            const model::Cost& c, int layer_op, int count) {
  StepOp op;
  op.name = std::move(name);
  op.layer_op = layer_op;
  op.count = count;
  op.work.family = family;
  op.work.variant = variant;
  op.work.dtype = kDtype;
  op.work.shape = shape;
  op.work.flops = c.flops;
  op.work.bytes = c.bytes;
  return op;
}

class Builder {
 public:
  explicit Builder(const DeclaredCost& declared) : declared_(declared) {}

  // A registry variant at a shape, with its declared FLOPs, bytes and execution.
  StepOp variant(std::string name, const std::string& family, const std::string& variant, const Shape& shape,
                 int layer_op = -1, int count = 1) const {
    std::optional<model::Cost> c = declared_ ? declared_(family, variant, shape) : std::nullopt;
    if (!c)
      bad_input("the stack's " + name + " runs " + family + "/" + variant + " at " + shape.str() +
                ", which the registry does not describe");
    StepOp op = make(std::move(name), family, variant, shape, *c, layer_op, count);
    if (c->exec.declared) op.work.exec = c->exec;
    return op;
  }
  // The TN GEMM (registered only with CUDA): its cost is the matmul model's minimal traffic, as
  // every GEMM rung's, and its prediction comes from the rung's tile (gemm_rung), not a declaration.
  static StepOp gemm(std::string name, int64_t m, int64_t n, int64_t k, int layer_op = -1, int count = 1) {
    StepOp op = own(std::move(name), kGemmFamily, kGemmVariant, model::matmul({m, n, k, DType::bf16}),
                    shape_of({{"m", m}, {"n", n}, {"k", k}}), layer_op, count);
    op.work.exec = {};
    return op;
  }
  // One of the stack's own kernels: one launch streaming `c`'s bytes.
  static StepOp own(std::string name, const std::string& family, const std::string& what, const model::Cost& c,
                    const Shape& shape, int layer_op = -1, int count = 1) {
    StepOp op = make(std::move(name), family, what, shape, c, layer_op, count);
    op.work.exec.declared = true;
    op.work.exec.kernels = 1;
    op.work.exec.how = "one kernel, one pass over its tensors";
    return op;
  }

 private:
  const DeclaredCost& declared_;
};

// Elementwise chain kernels (kernels/elementwise/chain.cuh): `inputs` bf16 tensors in, one out.
StepOp chain(std::string name, int64_t n, int inputs, double flops_per_element, int layer_op = -1) {
  const model::Cost c = model::elementwise({n, 1, false, flops_per_element, DType::bf16, inputs - 1});
  return Builder::own(std::move(name), "elementwise", "chain", c, shape_of({{"n", n}}), layer_op);
}
// A bf16 tensor of `elements` read once and written once: the transpose kernel
// (kernels/transformer/transpose.cuh, 32 × 32 padded tiles: whole 64-byte rows each way) or a copy.
model::Cost pass_cost(int64_t elements) {
  model::Cost c;
  c.bytes = 2.0 * 2.0 * double(elements);
  return c;
}
StepOp transpose(std::string name, int64_t rows, int64_t cols) {
  return Builder::own(std::move(name), "transpose", "transpose_bf16", pass_cost(rows * cols),
                      shape_of({{"rows", rows}, {"cols", cols}}));
}
StepOp copy(std::string name, int64_t elements, int count = 1) {
  return Builder::own(std::move(name), "copy", "cudaMemcpyAsync", pass_cost(elements), shape_of({{"n", elements}}), -1,
                      count);
}

// y = x·Wᵀ backward on the TN-only GEMM (Stack::Impl::linear_backward): dyᵀ and xᵀ, dW, Wᵀ, dx.
void linear_backward(std::vector<StepOp>& out, const Builder& b, const std::string& what, int64_t t, int64_t in,
                     int64_t outs) {
  out.push_back(transpose(what + " dyᵀ", t, outs));
  out.push_back(transpose(what + " xᵀ", t, in));
  out.push_back(b.gemm(what + " dW", outs, in, t));
  out.push_back(transpose(what + " Wᵀ", outs, in));
  out.push_back(b.gemm(what + " dx", t, in, outs));
}

}  // namespace

StackOps stack_ops(const model::StackShape& s, const DeclaredCost& declared) {
  if (s.batch < 1 || s.seq < 1 || s.d_model < 1 || s.heads < 1 || s.mlp_ratio < 1 || s.d_model % s.heads != 0)
    bad_input("the stack's shape needs positive sizes and heads dividing d_model");
  const Builder b(declared);
  const int64_t t = s.tokens(), d = s.d_model, f = s.mlp(), td = t * d;
  const Shape rows = shape_of({{"rows", t}, {"cols", d}});
  const Shape att = shape_of({{"b", s.batch}, {"h", s.heads}, {"n", s.seq}, {"d", s.head_dim()}});
  const Shape att_bwd = shape_of({{"b", s.batch}, {"h", s.heads}, {"n", s.seq}, {"d", s.head_dim()}, {"det", 1}});
  // GeLU (tanh form): ~8 FLOPs per element forward, ~14 for its derivative times dG.
  constexpr double kGeluFlops = 8, kGeluBwdFlops = 14;
  StackOps o;
  // The forward, indices into model::layer_model's ops: LN1 0, QKV 1, attention 2, out proj 3,
  // residual 4, LN2 5, MLP up 6, GeLU 7, MLP down 8, residual 9.
  auto& fw = o.forward;
  fw.push_back(b.variant("LN1", "layernorm", "v03_one_read_bf16", rows, 0));
  fw.push_back(b.gemm("QKV matmul", t, d, d, 1, 3));
  fw.push_back(b.variant("attention", "attention", "v02_flash_mma", att, 2));
  fw.push_back(b.gemm("out proj", t, d, d, 3));
  fw.push_back(chain("residual 1", td, 2, 1, 4));
  fw.push_back(b.variant("LN2", "layernorm", "v03_one_read_bf16", rows, 5));
  fw.push_back(b.gemm("MLP up", t, f, d, 6));
  fw.push_back(chain("GeLU", t * f, 1, kGeluFlops, 7));
  fw.push_back(b.gemm("MLP down", t, d, f, 8));
  fw.push_back(chain("residual 2", td, 2, 1, 9));
  // The backward, in Stack::Impl::backward's order.
  auto& bw = o.backward;
  linear_backward(bw, b, "MLP down", t, f, d);
  bw.push_back(chain("GeLU backward", t * f, 2, kGeluBwdFlops));
  linear_backward(bw, b, "MLP up", t, d, f);
  bw.push_back(b.variant("LN2 backward", "layernorm_bwd", "v02_one_read_bf16", rows));
  bw.push_back(chain("LN2 residual add", td, 2, 1));
  linear_backward(bw, b, "out proj", t, d, d);
  bw.push_back(b.variant("attention backward", "attention_bwd", "v01_flash_bwd", att_bwd));
  bw.push_back(copy("dQ|dK|dV pitched copy", td, 3));
  linear_backward(bw, b, "QKV", t, d, 3 * d);
  bw.push_back(b.variant("LN1 backward", "layernorm_bwd", "v02_one_read_bf16", rows));
  bw.push_back(chain("LN1 residual add", td, 2, 1));
  o.once.push_back(copy("input, dY in, dX out", td, 3));
  return o;
}

void predict_stack(StackOps& ops, const std::function<Ceilings(const std::string& family)>& for_family) {
  const auto run = [&](std::vector<StepOp>& list) {
    double sum = 0;
    for (StepOp& op : list) {
      op.prediction = predict(op.work, for_family(op.work.family));
      sum += op.seconds();
    }
    return sum;
  };
  ops.forward_s = run(ops.forward);
  ops.backward_s = run(ops.backward);
  ops.once_s = run(ops.once);
}

void apply(const StackOps& ops, model::LayerModel& layer, const std::string& source) {
  for (model::LayerOp& op : layer.ops) op.time_s = 0;
  for (const StepOp& op : ops.forward) {
    if (op.layer_op < 0 || op.layer_op >= int(layer.ops.size()))
      bad_input("the stack's " + op.name + " names no op of the layer model");
    layer.ops[size_t(op.layer_op)].time_s += op.seconds();
  }
  layer.forward_s = ops.forward_s;
  layer.backward_s = ops.backward_s;
  layer.step_once_s = ops.once_s;
  layer.time_source = source;
}

}  // namespace sol::predict
