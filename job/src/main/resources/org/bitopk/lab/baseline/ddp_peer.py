#!/usr/bin/env python3
"""PyTorch DistributedDataParallel (gloo) on bitopk's exact problem, one process per worker, as Spark's
TorchDistributor places it: the peer of time-to-accuracy's ddp-* systems (job/docs/time-to-accuracy.md).

The problem comes from a directory bitopk wrote (DdpProblem.java): problem.json, x0.f32 (the job's initial
parameters in DL4J's flattened order, which is torch's Linear weight [out, in] then bias, layer after layer),
per worker its shard (shard-W.f32 features already normalised, shard-W-labels.i32) and each epoch's example order
(shard-W-order.i32), and the test set (test.f32, test-labels.i32); little-endian float32 and int32.

  ddp_peer.py store --address A --port N --world-size P --seconds S
      the rendezvous (a TCPStore server) on the driver's host, until every rank said it is done or S seconds
  ddp_peer.py train --problem DIR --store A:N --rank R --world-size P --bind ADDRESS --system SYSTEM ...
      one rank; rank 0 writes DIR-independent results into --out: trace.csv and params-ROUND.f32 per evaluation
  ddp_peer.py gradient --problem DIR --worker W --round T --out FILE
      the mean cross-entropy gradient of worker W's minibatch of round T at x0, flattened as x0 (for the test that
      shows both frameworks compute the same gradient)
"""
import argparse
import array
import fcntl
import json
import os
import socket
import struct
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

SYSTEMS = ("dense", "fp16", "powersgd-1", "powersgd-4")
# PowerSGD compresses from this iteration on (PyTorch's default, 1,000, would leave these runs uncompressed; its
# documentation's examples use 10)
POWERSGD_START = 10


def read_array(path, typecode, what, count):
    """The little-endian array of `typecode` in `path`, checked to hold `count` values when given."""
    values = array.array(typecode)
    with open(path, "rb") as f:
        values.frombytes(f.read())
    if sys.byteorder != "little":
        values.byteswap()
    if count is not None and len(values) != count:
        raise SystemExit(f"ddp_peer: {path} holds {len(values)} {what}, expected {count}")
    return values


def read_floats(path, count=None):
    return torch.frombuffer(read_array(path, "f", "floats", count), dtype=torch.float32).clone()


def read_ints(path, count=None):
    return torch.frombuffer(read_array(path, "i", "ints", count), dtype=torch.int32).long()


def write_floats(path, tensor):
    values = array.array("f", tensor.detach().to(torch.float32).flatten().tolist())
    if sys.byteorder != "little":
        values.byteswap()
    with open(path + ".tmp", "wb") as f:
        f.write(values.tobytes())
    os.replace(path + ".tmp", path)


class Problem:
    """bitopk's problem as it wrote it: the MLP's widths, x0, the shards, their orders, the test set."""

    def __init__(self, directory):
        self.directory = directory
        with open(os.path.join(directory, "problem.json")) as f:
            self.meta = json.load(f)
        self.layers = self.meta["layers"]
        self.parameters = self.meta["parameters"]
        self.batch = self.meta["batch"]
        self.epochs = self.meta["epochs"]
        self.shard_examples = self.meta["shard_examples"]
        self.rounds_per_epoch = self.shard_examples // self.batch

    def path(self, name):
        return os.path.join(self.directory, name)

    def model(self):
        widths = self.layers
        layers = []
        for i in range(len(widths) - 1):
            layers.append(nn.Linear(widths[i], widths[i + 1]))
            if i < len(widths) - 2:
                layers.append(nn.ReLU())
        model = nn.Sequential(*layers)
        x0 = read_floats(self.path("x0.f32"), self.parameters)
        with torch.no_grad():
            torch.nn.utils.vector_to_parameters(x0, model.parameters())
        return model

    def shard(self, worker):
        n, length = self.shard_examples, self.layers[0]
        features = read_floats(self.path(f"shard-{worker}.f32"), n * length).view(n, length)
        labels = read_ints(self.path(f"shard-{worker}-labels.i32"), n)
        order = read_ints(self.path(f"shard-{worker}-order.i32"), self.epochs * n).view(self.epochs, n)
        return Shard(features, labels, order, self.batch, self.rounds_per_epoch)

    def test(self):
        n, length = self.meta["test_examples"], self.layers[0]
        return read_floats(self.path("test.f32"), n * length).view(n, length), read_ints(self.path("test-labels.i32"), n)


class Shard:
    """A worker's minibatch of round t: batch t mod R of epoch t div R, in the epoch's order (as the job's workers)."""

    def __init__(self, features, labels, order, batch, rounds_per_epoch):
        self.features, self.labels, self.order = features, labels, order
        self.batch, self.rounds_per_epoch = batch, rounds_per_epoch

    def minibatch(self, round_index):
        epoch, index = divmod(round_index, self.rounds_per_epoch)
        rows = self.order[epoch, index * self.batch:(index + 1) * self.batch]
        return self.features[rows], self.labels[rows]


def evaluate(model, features, labels):
    """Mean -log p(label) (p floored at 1e-12) and the share of argmax hits, as bitopk's NetworkEvaluation."""
    with torch.no_grad():
        p = F.softmax(model(features), dim=1)
        loss = -torch.log(torch.clamp(p[torch.arange(len(labels)), labels], min=1e-12)).sum().item()
        correct = (p.argmax(dim=1) == labels).sum().item()
    return correct / len(labels), loss / len(labels)


def interface_of(address):
    """The name of the network interface holding ADDRESS (gloo binds to it: GLOO_SOCKET_IFNAME)."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        for _, name in socket.if_nameindex():
            try:
                request = struct.pack("256s", name.encode()[:15])
                found = socket.inet_ntoa(fcntl.ioctl(probe.fileno(), 0x8915, request)[20:24])  # SIOCGIFADDR
            except OSError:
                continue
            if found == address:
                return name
    finally:
        probe.close()
    raise SystemExit(f"ddp_peer: no network interface has the address {address}")


class ByteCount:
    """What this rank hands to all-reduce per round; a ring all-reduce sends 2(P-1)/P of it from every rank."""

    def __init__(self):
        self.payload = 0

    def wrap_all_reduce(self):
        original = dist.all_reduce

        def counted(tensor, *args, **kwargs):
            self.payload += tensor.numel() * tensor.element_size()
            return original(tensor, *args, **kwargs)
        dist.all_reduce = counted


def register_system(model, system, counter):
    """The DDP communication of SYSTEM: none (DDP's own fp32 all-reduce) or one of PyTorch's hooks."""
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks, powerSGD_hook
    if system == "dense":
        return "DDP's own all-reduce of fp32 gradients"
    counter.wrap_all_reduce()
    if system == "fp16":
        model.register_comm_hook(None, default_hooks.fp16_compress_hook)
        return "fp16_compress_hook"
    rank = int(system.split("-")[1])
    state = powerSGD_hook.PowerSGDState(process_group=None, matrix_approximation_rank=rank,
                                        start_powerSGD_iter=POWERSGD_START, use_error_feedback=True,
                                        warm_start=True)
    model.register_comm_hook(state, powerSGD_hook.powerSGD_hook)
    return f"powerSGD_hook rank {rank}, error feedback, warm start, from iteration {POWERSGD_START}"


def train(a):
    torch.set_num_threads(1)
    os.environ["GLOO_SOCKET_IFNAME"] = interface_of(a.bind)
    problem = Problem(a.problem)
    host, port = a.store.rsplit(":", 1)
    store = dist.TCPStore(host, int(port), a.world_size, False, timedelta(seconds=300))
    dist.init_process_group("gloo", store=store, rank=a.rank, world_size=a.world_size,
                            timeout=timedelta(seconds=a.timeout))
    # a group of its own for the evaluation's stop decision, beside DDP's all-reduces
    control = dist.new_group(backend="gloo")
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(problem.model())
    counter = ByteCount()
    how = register_system(model, a.system, counter)
    optimizer = torch.optim.SGD(model.parameters(), lr=a.lr)
    shard = problem.shard(a.rank)
    test = problem.test() if a.rank == 0 else None
    total_rounds = problem.rounds_per_epoch * problem.epochs
    dense_payload = problem.parameters * 4
    trace = []
    clock, paused = 0.0, time.perf_counter()

    def record(round_index, seconds):
        accuracy, loss = evaluate(model.module, *test)
        payload = counter.payload if a.system != "dense" else dense_payload * round_index
        wire = round(payload * 2 * (a.world_size - 1))  # P ranks, each 2(P-1)/P of its payload
        trace.append((round_index, seconds, wire, accuracy, loss))
        write_floats(os.path.join(a.out, f"params-{round_index}.f32"),
                     torch.nn.utils.parameters_to_vector(model.module.parameters()))
        return accuracy

    if a.rank == 0:
        record(0, 0.0)
    dist.barrier(group=control)
    started = time.perf_counter()
    t = 0
    while t < total_rounds:
        x, y = shard.minibatch(t)
        optimizer.zero_grad(set_to_none=True)
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
        t += 1
        if t % a.eval_every == 0 or t >= a.max_rounds or t == total_rounds:
            seconds = clock + time.perf_counter() - started
            stop = torch.zeros(1)
            if a.rank == 0:
                accuracy = record(t, seconds)
                done = seconds >= a.max_seconds or t >= a.max_rounds or (a.stop_at_target and accuracy >= a.target)
                stop[0] = 1.0 if done else 0.0
            dist.broadcast(stop, src=0, group=control)
            clock = seconds
            started = time.perf_counter()
            if stop[0] > 0:
                break
    if a.rank == 0:
        with open(os.path.join(a.out, "trace.csv.tmp"), "w") as f:
            f.write(f"# {how}\n# torch {torch.__version__}\nrounds,seconds,bytes,accuracy,test_loss\n")
            for r, s, b, acc, loss in trace:
                f.write(f"{r},{s:.6f},{b},{acc:.6f},{loss:.6f}\n")
        os.replace(os.path.join(a.out, "trace.csv.tmp"), os.path.join(a.out, "trace.csv"))
    dist.barrier(group=control)
    store.add("done", 1)
    dist.destroy_process_group()


def serve_store(a):
    store = dist.TCPStore(a.address, a.port, a.world_size + 1, True, timedelta(seconds=a.seconds),
                          wait_for_workers=False)
    deadline = time.monotonic() + a.seconds
    while time.monotonic() < deadline:
        if store.add("done", 0) >= a.world_size:
            return
        time.sleep(0.2)
    raise SystemExit(f"ddp_peer: the ranks did not finish within {a.seconds} s")


def gradient(a):
    problem = Problem(a.problem)
    model = problem.model()
    x, y = problem.shard(a.worker).minibatch(a.round)
    F.cross_entropy(model(x), y).backward()
    write_floats(a.out, torch.cat([p.grad.flatten() for p in model.parameters()]))


def main(argv):
    parser = argparse.ArgumentParser(prog="ddp_peer.py", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    s = commands.add_parser("store")
    s.add_argument("--address", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--world-size", type=int, required=True)
    s.add_argument("--seconds", type=float, required=True)
    t = commands.add_parser("train")
    t.add_argument("--problem", required=True)
    t.add_argument("--store", required=True)
    t.add_argument("--rank", type=int, required=True)
    t.add_argument("--world-size", type=int, required=True)
    t.add_argument("--bind", required=True)
    t.add_argument("--system", choices=SYSTEMS, required=True)
    t.add_argument("--lr", type=float, required=True)
    t.add_argument("--eval-every", type=int, required=True)
    t.add_argument("--max-seconds", type=float, required=True)
    t.add_argument("--max-rounds", type=int, required=True)
    t.add_argument("--target", type=float, required=True)
    t.add_argument("--stop-at-target", action="store_true")
    t.add_argument("--timeout", type=float, default=600)
    t.add_argument("--out", required=True)
    g = commands.add_parser("gradient")
    g.add_argument("--problem", required=True)
    g.add_argument("--worker", type=int, required=True)
    g.add_argument("--round", type=int, required=True)
    g.add_argument("--out", required=True)
    a = parser.parse_args(argv)
    {"store": serve_store, "train": train, "gradient": gradient}[a.command](a)


if __name__ == "__main__":
    main(sys.argv[1:])
