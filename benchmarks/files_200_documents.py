"""Read and resolve a 200-document deployment file (issue #32: under 2 s on one core).

    python benchmarks/files_200_documents.py

Builds a manifest of 200 documents (100 Deployments starting SGLang or vLLM, each followed by
a Service), finds its launches and resolves each one, and prints the CPU time of each part.
Not a timed test: machines differ.
"""

from __future__ import annotations

import os
import time

os.environ.setdefault("CGCONFIG_NO_GPU_PROBE", "1")

from cgconfig.files.launch import find_launches
from cgconfig.files.plan import resolve_launch

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: server-{i}
spec:
  template:
    spec:
      containers:
        - name: engine
          image: {image}
          command: {command}
          args: {args}
          env:
            - name: HF_HOME
              value: /data
          resources:
            limits:
              nvidia.com/gpu: "{tp}"
---
apiVersion: v1
kind: Service
metadata:
  name: server-{i}
spec:
  ports: [{{port: 8000}}]
"""


def manifest() -> str:
    """200 documents: 100 Deployments and their Services."""
    parts = []
    for i in range(100):
        vllm = i % 2 == 0
        parts.append(DEPLOYMENT.format(
            i=i, tp=1 << (i % 4),
            args=f'["--tensor-parallel-size", "{1 << (i % 4)}", "--max-num-seqs", "{64 + i}"]'
            if vllm else f'["--tp-size", "{1 << (i % 4)}", "--max-running-requests", "{64 + i}"]',
            image="vllm/vllm-openai:v0.30.0" if vllm else "lmsysorg/sglang:v0.5.21",
            command='["vllm", "serve", "Qwen/Qwen3-8B"]' if vllm else
            '["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B"]'))
    return "---\n".join(parts)


def main() -> None:
    text = manifest()
    start = time.process_time()
    launches = find_launches("bench.yaml", text)
    found = time.process_time()
    for launch in launches:
        resolve_launch(launch, ["--gpu-memory-gib", "80"])
    resolved = time.process_time()
    print(f"documents: 200, launches: {len(launches)} (50 vLLM 0.30.0, 50 SGLang 0.5.21)")
    print(f"read and found: {found - start:.3f} s CPU")
    print(f"resolved every launch: {resolved - found:.3f} s CPU")
    print(f"total: {resolved - start:.3f} s CPU")


if __name__ == "__main__":
    main()
