#!/bin/bash
# A benchmark script of the shape InferenceX reviews: the running-request cap beside the graph
# maximum, and an old spelling of the graph flag.
MODEL=deepseek-ai/DeepSeek-V3
python3 -m sglang.launch_server --model-path "$MODEL" --tp 8 \
    --cuda-graph-max-bs-decode 256 \
    --max-running-requests 1024 \
    --gpu-memory-gib 141

vllm serve "$MODEL" -tp 8 --max-num-seqs 1024

python3 -m sglang.launch_server --model-path "$MODEL" --tp 8 --cuda-graph-max-bs 64
