# torch's all_reduce of 256 MiB float32 on NCCL, timed as nccl-tests times it (warm-up, then a
# loop between two CUDA events), for test/gpu/hosts.sh to print beside clab's busbw. Started by
# torchrun on each "node".
import os
import torch
import torch.distributed as dist

dist.init_process_group("nccl")
rank, world = dist.get_rank(), dist.get_world_size()
torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
nbytes = 256 * 2**20
x = torch.ones(nbytes // 4, dtype=torch.float32, device="cuda")
for _ in range(5):
    dist.all_reduce(x)
torch.cuda.synchronize()
iters = 20
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
start.record()
for _ in range(iters):
    dist.all_reduce(x)
end.record()
torch.cuda.synchronize()
seconds = start.elapsed_time(end) / 1e3 / iters
algbw = nbytes / seconds / 1e9
busbw = algbw * 2 * (world - 1) / world
if rank == 0:
    print(f"torch all_reduce {nbytes} B: {seconds * 1e6:.0f} us, algbw {algbw:.2f} GB/s, busbw {busbw:.2f}", flush=True)
dist.destroy_process_group()
