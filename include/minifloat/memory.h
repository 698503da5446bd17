/* SPDX-License-Identifier: MIT */
/* minifloat/memory.h - what a training run keeps in memory, per GPU and in total, per precision recipe.
 *
 *   mf_memory_model m;  mf_memory_recipe r;  mf_memory_cluster c;  mf_memory_report rep;
 *   mf_memory_model_preset("llama2-7b", &m);
 *   mf_memory_recipe_preset("bf16-amp", &r);
 *   mf_memory_cluster_default(&c);                  // one GPU, no ZeRO, no recomputation
 *   c.gpu_bytes = 80ull << 30;
 *   if (mf_memory_plan(&m, &r, &c, &rep) == MF_OK)
 *       printf("%llu bytes per GPU, fits: %d\n", (unsigned long long)rep.gpu_total, rep.fits);
 *
 * Every tensor is counted as elements, then turned into bytes by the library's own size functions:
 * mf_storage_bytes for a plain format (e2m1 two to a byte), mf_mx_sizes for MX blocks (element bytes plus
 * one E8M0 scale per 32 elements), mf_nvfp4_sizes for NVFP4 (e2m1 plus one E4M3 scale per 16 elements and
 * one FP32 tensor scale). A new format or block size is counted right without changing the planner.
 * Bytes are exact integers (uint64_t); docs/memory.md defines every term with worked examples, and says
 * which published figure (DeepSpeed's estimators, HF accelerate, the ZeRO paper, Korthikanti et al.)
 * each option reproduces.
 *
 * Part of the lab library: include <minifloat/lab.h> and link minifloat_lab.
 */
#ifndef MINIFLOAT_MEMORY_H
#define MINIFLOAT_MEMORY_H

#include "types.h"

MF_BEGIN_DECLS

/* What the model is. */
typedef enum {
    MF_MEMORY_TRANSFORMER, /* a decoder-only (or encoder) transformer: embedding, layers x (attention +
                              MLP + 2 norms), final norm, output projection */
    MF_MEMORY_MLP          /* a multilayer perceptron: inputs -> hidden x layers -> outputs, biases,
                              every buffer of the forward and backward pass kept (tools/train_demo) */
} mf_memory_arch;

typedef struct mf_memory_model {
    const char *name;              /* for reports; may be NULL */
    mf_memory_arch arch;
    uint64_t params;               /* trainable parameters; 0: derived from the shape */
    uint64_t largest_layer_params; /* parameters of the largest single module (ZeRO-3 gathers one at a
                                      time); 0: derived from the shape */
    uint64_t layers;               /* transformer blocks, or hidden layers of the MLP */
    uint64_t hidden;               /* model width h */
    uint64_t heads;                /* attention heads a */
    uint64_t kv_heads;             /* key/value heads (grouped-query attention); 0: heads */
    uint64_t ffn;                  /* MLP inner width; 0: 4 * hidden */
    uint64_t vocab;                /* vocabulary */
    uint64_t seq;                  /* sequence length s */
    uint64_t micro_batch;          /* sequences (MLP: samples) per GPU per step b; 0: 1 */
    uint64_t inputs, outputs;      /* MLP only: input and output widths */
    int gated_ffn;                 /* 1: SwiGLU (gate, up and down matrices, Llama); 0: two matrices */
    int tied_embeddings;           /* 1: the output projection is the input embedding (GPT-2) */
    int biases;                    /* 1: linear layers and norms have biases, positions are learned
                                      (GPT-2); 0: RMSNorm, rotary positions, no biases (Llama) */
    int dropout;                   /* 1: dropout masks are stored (the Korthikanti et al. formula) */
} mf_memory_model;

/* How a tensor class is scaled when stored; decides which size function counts it. */
typedef enum {
    MF_MEMORY_SCALE_NONE,   /* format alone: mf_storage_bytes */
    MF_MEMORY_SCALE_TENSOR, /* per-tensor scale (Transformer Engine FP8): mf_storage_bytes; the scale,
                               its inverse and the amax history are counted in MF_MEMORY_PART_SCALING */
    MF_MEMORY_SCALE_MX,     /* OCP MX: format must be an MX element format (e4m3 e5m2 e2m3 e3m2 e2m1);
                               mf_mx_sizes, rows of 32 along the contiguous axis */
    MF_MEMORY_SCALE_NVFP4,  /* NVFP4: format must be e2m1; mf_nvfp4_sizes plus the FP32 tensor scale */
    MF_MEMORY_SCALE_BLOCK   /* 8-bit block-quantized optimizer state (bitsandbytes): format e4m3 or any
                               8-bit code, one FP32 absmax per block_size elements */
} mf_memory_scaling;

#define MF_MEMORY_SCALING_COUNT 5

/* A stored tensor class: its format and scaling. */
typedef struct mf_memory_tensor {
    mf_format format;
    mf_memory_scaling scaling;
    uint32_t block_size; /* MF_MEMORY_SCALE_BLOCK only: elements per absmax (0: 2048) */
} mf_memory_tensor;

/* Activation recomputation (Korthikanti et al., arXiv 2205.05198). */
typedef enum {
    MF_MEMORY_RECOMPUTE_NONE,      /* every activation the backward pass reads is stored */
    MF_MEMORY_RECOMPUTE_SELECTIVE, /* the attention core (softmax, its dropout, attention over V) is
                                      recomputed: the 5as/h term goes */
    MF_MEMORY_RECOMPUTE_FULL       /* only each layer's input is stored (2sbh per layer, 16-bit) */
} mf_memory_recompute;

/* What a precision recipe keeps. The presets (mf_memory_recipe_preset) fill every field; a
 * user-defined recipe starts from one and changes fields. */
typedef struct mf_memory_recipe {
    const char *name;              /* for reports; may be NULL */
    int master;                    /* 1: FP32 master weights beside the parameters (mixed precision) */
    mf_format params;              /* the parameters as the model holds them (f32, bf16, f16) */
    int gemm_copy;                 /* 1: the linear layers' weights are also kept cast to gemm_weights
                                      (Transformer Engine's FP8 weight cache) */
    int gemm_transposed;           /* 1: a transposed cast copy (TE on Hopper: the backward's dgrad
                                      GEMM reads W^T; MX and NVFP4 quantize it along the other
                                      axis); independent of gemm_copy */
    mf_memory_tensor gemm_weights; /* format of the cast copies */
    mf_format grads;               /* gradients of the parameters */
    int grad_accum;                /* 1: plus an FP32 gradient buffer (Megatron main_grad; DeepSpeed's
                                      FP32 gradient partition), sharded with the optimizer states */
    mf_memory_tensor adam_m, adam_v; /* Adam's moments */
    mf_memory_tensor act_gemm;     /* activations stored as GEMM inputs (the QKV, output-projection,
                                      FC1 and FC2 inputs: what TE FP8 saves in FP8) */
    mf_format act_other;           /* every other stored activation (softmax, norms, GeLU input) */
    uint32_t amax_history;         /* FP8 delayed scaling: history length per scaled tensor (TE: 1024);
                                      0 with current scaling (no history) */
    uint64_t scale_state_bytes;    /* bytes of one scaled tensor's state; 0: TE's layout, history +
                                      scale + scale_inv, FP32 each */
    uint32_t scaled_per_linear;    /* scaled tensors per linear layer (TE: input, weight, output
                                      gradient = 3); used when act_gemm is MF_MEMORY_SCALE_TENSOR */
    int loss_scaler;               /* 1: a dynamic loss scaler (fp16-amp): sizeof(mf_loss_scaler) */
} mf_memory_recipe;

/* Where the model states of ZeRO go, and whose accounting is used. */
typedef enum {
    MF_MEMORY_ZERO_PAPER,    /* Rajbhandari et al., arXiv 1910.02054: stage 1 shards master weights,
                                optimizer states and the FP32 gradient buffer; stage 2 also the
                                gradients; stage 3 also the parameters, plus one gathered layer
                                (parameters and gradients of the largest layer, MF_MEMORY_PART_GATHER) */
    MF_MEMORY_ZERO_DEEPSPEED /* DeepSpeed's estimators (estimate_zero2/3_model_states_mem_needs): stages
                                1 and 2 keep the full 16-bit gradients; stage 3 keeps none but the
                                gathered layer's; host memory includes the loading copies and the
                                cpu_buffer_factor */
} mf_memory_zero_rule;

typedef struct mf_memory_cluster {
    uint64_t gpu_bytes;         /* memory of one GPU; 0: no fit check */
    uint64_t reserve_bytes;     /* per GPU, taken before anything is planned (CUDA context, NCCL) */
    uint32_t gpus_per_node;     /* >= 1 */
    uint32_t nodes;             /* >= 1; data-parallel ranks = gpus_per_node * nodes / tensor_parallel */
    uint32_t tensor_parallel;   /* t >= 1: divides the layers' parameters and, with sequence_parallel,
                                   every activation */
    int sequence_parallel;      /* 1: norms and dropouts sharded too (Korthikanti: sbh(34 + 5as/h)/t) */
    int zero_stage;             /* 0 .. 3 */
    mf_memory_zero_rule zero_rule;
    int offload_optimizer;      /* 1: master weights, optimizer states and FP32 gradients in host memory */
    int offload_params;         /* 1: parameters in host memory too (ZeRO-3 only) */
    int zero_init;              /* DeepSpeed rule, stage 3: the model is built partitioned (zero.Init) */
    double cpu_buffer_factor;   /* DeepSpeed rule: host figures are multiplied by it (0: 1.5) */
    mf_memory_recompute recompute;
    int flash_attention;        /* 1: no s^2 attention term; the softmax statistics (FP32 logsumexp,
                                   one per head and row) are stored instead */
} mf_memory_cluster;

/* The parts of the memory, in the order of a report's arrays. */
typedef enum {
    MF_MEMORY_PART_MASTER,      /* FP32 master weights */
    MF_MEMORY_PART_PARAMS,      /* parameters in the recipe's params format */
    MF_MEMORY_PART_GEMM_COPY,   /* cast (and transposed) copies of the linear layers' weights */
    MF_MEMORY_PART_GRADS,       /* gradients in the recipe's grads format */
    MF_MEMORY_PART_GRAD_ACCUM,  /* FP32 gradient buffer */
    MF_MEMORY_PART_OPTIMIZER,   /* Adam m and v */
    MF_MEMORY_PART_SCALING,     /* FP8 amax histories, scales and inverses; the loss scaler */
    MF_MEMORY_PART_ACTIVATIONS, /* what the forward pass stores for the backward pass */
    MF_MEMORY_PART_GATHER       /* ZeRO-3: the largest layer's gathered parameters and gradients */
} mf_memory_part;

#define MF_MEMORY_PART_COUNT 9

typedef struct mf_memory_report {
    uint64_t params;               /* the model's parameters (given or derived) */
    uint64_t largest_layer_params; /* given or derived */
    uint64_t linear_params;        /* parameters of the linear layers' weight matrices (the GEMMs an
                                      FP8 recipe casts) */
    uint32_t gpus;                 /* gpus_per_node * nodes */
    uint32_t data_parallel;        /* gpus / tensor_parallel */
    uint64_t gpu[MF_MEMORY_PART_COUNT]; /* bytes per GPU, by part */
    uint64_t gpu_total;            /* their sum, plus reserve_bytes */
    uint64_t cpu_node;             /* host bytes per node (offloaded states; DeepSpeed rule: its
                                      estimator's figure) */
    uint64_t cluster_total;        /* gpu_total * gpus: every GPU together */
    uint64_t activation_per_layer; /* bytes per GPU of one layer's stored activations */
    int fits;                      /* 1: gpu_total <= gpu_bytes (0 when gpu_bytes is 0) */
    uint32_t min_gpus;             /* fewest GPUs (tensor_parallel times data-parallel ranks, same
                                      t, stage and options) on which it fits, up to 65536; 0: never, or
                                      gpu_bytes is 0 */
} mf_memory_report;

/* Plan the memory of model trained with recipe on cluster into *report.
 * Returns MF_OK or, checked in this order (the cluster, the model, the recipe; nothing written on error):
 *   MF_E_NULL    a pointer is NULL;
 *   MF_E_ARG     cluster: gpus_per_node, nodes or tensor_parallel 0, more than 65536 GPUs, GPUs not a
 *                multiple of tensor_parallel, zero_stage not 0..3, zero_rule or recompute out of range,
 *                offload_params below stage 3, cpu_buffer_factor negative or not finite;
 *                model: arch out of range; layers 0 with params 0 or below largest_layer_params; hidden
 *                0; transformer: heads, seq or vocab 0, hidden not a multiple of heads, heads not of
 *                kv_heads, heads, kv_heads, ffn or vocab not multiples of tensor_parallel, seq *
 *                micro_batch not a multiple of it with sequence_parallel; MLP: inputs or outputs 0, or
 *                tensor_parallel above 1; params below largest_layer_params or linear_params;
 *                recipe: a scaling out of range; later, a block-scaled tensor whose contiguous width is
 *                not a multiple of its block;
 *   MF_E_FORMAT  a format that a tensor class cannot take (f64, e8m0; an MX scaling with a non-MX
 *                element format; NVFP4 with a format other than e2m1);
 *   MF_E_SIZE    a product or sum overflows 64 bits, or one tensor is larger than mf_storage_bytes
 *                counts (2^57 bytes).
 */
MF_API int mf_memory_plan(const mf_memory_model *model, const mf_memory_recipe *recipe,
                          const mf_memory_cluster *cluster, mf_memory_report *report);

/* One GPU, zero reserve, t = 1, no ZeRO, paper rule, no offload, buffer factor 1.5, no recomputation,
 * no FlashAttention, gpu_bytes 0. Returns MF_OK or MF_E_NULL. */
MF_API int mf_memory_cluster_default(mf_memory_cluster *cluster);

/* The published shapes (name, case-insensitive; list in docs/memory.md): "gpt2" (124M), "llama2-7b",
 * "llama2-13b", "llama2-70b", "llama3-8b", "llama3-70b"; params 0 (derived), micro_batch 1, seq the
 * model's context. Returns MF_OK, MF_E_NULL, or MF_E_ARG for an unknown name (*model untouched). */
MF_API int mf_memory_model_preset(const char *name, mf_memory_model *model);

/* The precision recipes: "fp32", "bf16-amp", "fp16-amp", "bf16-pure", "te-fp8-delayed",
 * "te-fp8-current", "mxfp8", "nvfp4" (case-insensitive; docs/memory.md says what each keeps).
 * Returns MF_OK, MF_E_NULL, or MF_E_ARG for an unknown name (*recipe untouched). */
MF_API int mf_memory_recipe_preset(const char *name, mf_memory_recipe *recipe);

/* GPU memory by name: "a100-40" "a100-80" "h100-80" "h200" "b200" "rtx4090" "rtx5090" (the marketed
 * capacity in GiB: 40, 80, 80, 141, 192, 24, 32, times 2^30). Returns MF_OK, MF_E_NULL, or MF_E_ARG. */
MF_API int mf_memory_gpu_preset(const char *name, uint64_t *bytes);

/* The i-th name (i from 0) of the model presets (kind 0), the recipe presets (kind 1), the GPU
 * presets (kind 2), or the part names (kind 3: "master", "params", "gemm_copy", "grads",
 * "grad_accum", "optimizer", "scaling", "activations", "gather"); NULL past the end or a bad kind. */
MF_API const char *mf_memory_name(int kind, int i);

MF_END_DECLS

#endif /* MINIFLOAT_MEMORY_H */
