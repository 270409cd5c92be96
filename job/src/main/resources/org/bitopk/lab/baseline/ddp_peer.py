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
      one rank; rank 0 writes DIR-independent results into --out: trace.csv and params-ROUND.f32 per evaluation,
      trace.csv with the mean milliseconds per round of each term of RoundTimer since the previous evaluation;
      with --checkpoint, a checkpoint at the start and at every evaluation into --out, and a rank that finds one
      there resumes from it (what TorchDistributor's user does to survive a failed run); with --progress FILE,
      rank 0 writes there the rounds completed after every round
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


class RoundTimer:
    """Where a rank's rounds go, and what it hands to all-reduce.

    Every all-reduce (dist.all_reduce, which DDP's hooks call) is counted (its payload) and timed from its call
    until its future completes; every bucket's hook records when the bucket's gradients were ready. DDP launches a
    bucket's all-reduce while the backward still computes earlier layers' gradients; the backward returns once every
    all-reduce has completed and its result is in the gradients. So a round splits, on the rank's clock, into
      compute        the forward and the backward, the hooks' own work (fp16 casts, PowerSGD's projections) and the
                     time an all-reduce was in flight while gradients were still being computed (hidden by that);
      communication  the time after the last bucket's gradients were ready during which an all-reduce was in
                     flight: what the all-reduces added to the round (waiting for the slowest rank included);
      step           the optimizer's step;
      rest           the minibatch, zero_grad, the loop and this bookkeeping.
    overlapped is the in-flight time that compute hid (a diagnostic: it is part of compute). One round's four
    terms are its wall time: they are read from shared clock readings.
    """

    def __init__(self):
        self.payload = 0
        self.ready = []
        self.flights = []

    def wrap_all_reduce(self):
        original = dist.all_reduce

        def counted(tensor, *args, **kwargs):
            self.payload += tensor.numel() * tensor.element_size()
            flight = [time.perf_counter(), None]
            self.flights.append(flight)
            work = original(tensor, *args, **kwargs)
            if work is None:
                flight[1] = time.perf_counter()
            else:
                # registered before the hook's own callbacks, so it runs before DDP sees the result
                work.get_future().then(lambda _: flight.__setitem__(1, time.perf_counter()))
            return work
        dist.all_reduce = counted

    def wrap_hook(self, hook):
        def timed(state, bucket):
            self.ready.append(time.perf_counter())
            return hook(state, bucket)
        return timed

    def backward(self, loss):
        """Runs loss.backward(); (seconds of communication, seconds overlapped) of it."""
        self.ready, self.flights = [], []
        begun = time.perf_counter()
        loss.backward()
        ended = time.perf_counter()
        last = max(self.ready, default=ended)
        flights = [(start, ended if end is None else end) for start, end in self.flights]
        return covered(flights, last, ended), covered(flights, begun, last)


def covered(intervals, low, high):
    """How much of [low, high] the union of the intervals covers."""
    total, reached = 0.0, low
    for start, end in sorted(intervals):
        start, end = max(start, reached), min(end, high)
        if end > start:
            total += end - start
            reached = end
    return total


SPLIT = ("compute", "communication", "step", "rest", "overlapped")


def register_system(model, system, timer):
    """The DDP communication of SYSTEM, each through a hook so that its all-reduces can be timed and counted.

    dense is PyTorch's allreduce_hook, which PyTorch documents as DDP's own all-reduce behind a hook (same result).
    """
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks, powerSGD_hook
    timer.wrap_all_reduce()
    if system == "dense":
        model.register_comm_hook(None, timer.wrap_hook(default_hooks.allreduce_hook))
        return "DDP's all-reduce of fp32 gradients (allreduce_hook)", None
    if system == "fp16":
        model.register_comm_hook(None, timer.wrap_hook(default_hooks.fp16_compress_hook))
        return "fp16_compress_hook", None
    rank = int(system.split("-")[1])
    state = powerSGD_hook.PowerSGDState(process_group=None, matrix_approximation_rank=rank,
                                        start_powerSGD_iter=POWERSGD_START, use_error_feedback=True,
                                        warm_start=True)
    model.register_comm_hook(state, timer.wrap_hook(powerSGD_hook.powerSGD_hook))
    return f"powerSGD_hook rank {rank}, error feedback, warm start, from iteration {POWERSGD_START}", state


CHECKPOINT = "checkpoint.pt"


def hook_state_file(out, rank, round_index):
    return os.path.join(out, f"checkpoint-rank-{rank}-round-{round_index}.pt")


def save_torch(path, value):
    torch.save(value, path + ".tmp")
    os.replace(path + ".tmp", path)


def save_checkpoint(a, round_index, seconds, model, optimizer, hook_state, timer, trace, control):
    """The run at the end of round ROUND_INDEX, SECONDS of its clock, now on the wall clock, so that a restart
    charges the time lost since. Each rank writes its hook's state (PowerSGD's error feedback and warm-start
    memory are its own), then rank 0 the rest, last, naming the round: a checkpoint is complete once rank 0's file
    names it. Files of older rounds go once a newer one is complete."""
    wall = time.time()
    if hook_state is not None:
        save_torch(hook_state_file(a.out, a.rank, round_index),
                   {slot: getattr(hook_state, slot) for slot in hook_state.__slots__ if slot != "process_group"})
        dist.barrier(group=control)
    if a.rank == 0:
        save_torch(os.path.join(a.out, CHECKPOINT), {
            "round": round_index, "clock": seconds, "wall": wall, "trace": list(trace), "payload": timer.payload,
            "model": model.module.state_dict(), "optimizer": optimizer.state_dict(), "world_size": a.world_size,
            "system": a.system})
        with open(os.path.join(a.out, "checkpoint-round.tmp"), "w") as f:
            f.write(f"{round_index}\n")
        os.replace(os.path.join(a.out, "checkpoint-round.tmp"), os.path.join(a.out, "checkpoint-round"))
    if hook_state is not None:
        # the previous round's file stays: rank 0 may not have named this round yet
        for name in os.listdir(a.out):
            prefix = f"checkpoint-rank-{a.rank}-round-"
            if name.startswith(prefix) and name.endswith(".pt") and int(name[len(prefix):-3]) < a.previous_checkpoint:
                os.remove(os.path.join(a.out, name))
        a.previous_checkpoint = round_index


def rebuild_buckets(model, features):
    """Has DDP lay out its gradient bucket as a run does after its first iteration: DDP rebuilds its buckets in the
    order the gradients became ready then, and the PowerSGD state a checkpoint holds is by that layout. One
    iteration of zero gradients, by the fresh hook state (plain all-reduce, before PowerSGD's first iteration), then
    the next forward pass rebuilds them; the parameters do not move."""
    (model(features[:1]).sum() * 0).backward()
    model.zero_grad(set_to_none=True)


def resume(a, model, optimizer, hook_state, timer, features):
    """The newest complete checkpoint in --out restored into this rank's model, optimizer and hook state: its
    round, its clock, when it was written and rank 0's trace so far; None without."""
    path = os.path.join(a.out, CHECKPOINT)
    if not a.checkpoint or not os.path.exists(path):
        return None
    saved = torch.load(path)
    if saved["world_size"] != a.world_size or saved["system"] != a.system:
        raise SystemExit(f"ddp_peer: {path} is of {saved['system']} with {saved['world_size']} ranks, not "
                         f"{a.system} with {a.world_size}")
    model.module.load_state_dict(saved["model"])
    optimizer.load_state_dict(saved["optimizer"])
    if hook_state is not None:
        rebuild_buckets(model, features)
        for slot, value in torch.load(hook_state_file(a.out, a.rank, saved["round"])).items():
            setattr(hook_state, slot, value)
    timer.payload = saved["payload"]
    a.previous_checkpoint = saved["round"]
    return saved


def write_progress(path, round_index):
    """The rounds completed, for the driver to follow the run (time-to-accuracy --cut strikes at a round)."""
    with open(path + ".tmp", "w") as f:
        f.write(f"{round_index}\n")
    os.replace(path + ".tmp", path)



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
    timer = RoundTimer()
    how, hook_state = register_system(model, a.system, timer)
    optimizer = torch.optim.SGD(model.parameters(), lr=a.lr)
    a.previous_checkpoint = 0
    shard = problem.shard(a.rank)
    resumed = resume(a, model, optimizer, hook_state, timer, shard.features)
    test = problem.test() if a.rank == 0 else None
    total_rounds = problem.rounds_per_epoch * problem.epochs
    trace = list(resumed["trace"]) if resumed else []
    clock = 0.0
    split = dict.fromkeys(SPLIT, 0.0)  # seconds of each term since the last evaluation

    def record(round_index, seconds, rounds):
        accuracy, loss = evaluate(model.module, *test)
        wire = round(timer.payload * 2 * (a.world_size - 1))  # P ranks, each 2(P-1)/P of its payload
        per_round = [1000 * split[term] / rounds if rounds else 0.0 for term in SPLIT]
        trace.append((round_index, seconds, wire, accuracy, loss, per_round))
        write_floats(os.path.join(a.out, f"params-{round_index}.f32"),
                     torch.nn.utils.parameters_to_vector(model.module.parameters()))
        return accuracy

    if a.rank == 0 and not resumed:
        record(0, 0.0, 0)
    dist.barrier(group=control)
    started = time.perf_counter()
    mark, since = started, 0
    t = resumed["round"] if resumed else 0
    if resumed:
        # the checkpoint's clock and every second since it was written: the rounds lost, the failure, the restart
        clock = resumed["clock"] + max(0.0, time.time() - resumed["wall"])
    if a.checkpoint and not resumed:
        save_checkpoint(a, 0, 0.0, model, optimizer, hook_state, timer, trace, control)
    while t < total_rounds:
        x, y = shard.minibatch(t)
        optimizer.zero_grad(set_to_none=True)
        begun = time.perf_counter()
        loss = F.cross_entropy(model(x), y)
        communication, overlapped = timer.backward(loss)
        stepping = time.perf_counter()
        optimizer.step()
        stepped = time.perf_counter()
        split["rest"] += begun - mark
        split["compute"] += stepping - begun - communication
        split["communication"] += communication
        split["overlapped"] += overlapped
        split["step"] += stepped - stepping
        mark = stepped
        t += 1
        since += 1
        if a.progress and a.rank == 0:
            write_progress(a.progress, t)
        if t % a.eval_every == 0 or t >= a.max_rounds or t == total_rounds:
            now = time.perf_counter()
            split["rest"] += now - mark
            seconds = clock + now - started
            stop = torch.zeros(1)
            if a.rank == 0:
                accuracy = record(t, seconds, since)
                done = seconds >= a.max_seconds or t >= a.max_rounds or (a.stop_at_target and accuracy >= a.target)
                stop[0] = 1.0 if done else 0.0
            dist.broadcast(stop, src=0, group=control)
            clock = seconds
            split = dict.fromkeys(SPLIT, 0.0)
            started = time.perf_counter()
            mark, since = started, 0
            if a.checkpoint:
                save_checkpoint(a, t, seconds, model, optimizer, hook_state, timer, trace, control)
            if stop[0] > 0:
                break
    if a.rank == 0:
        with open(os.path.join(a.out, "trace.csv.tmp"), "w") as f:
            f.write(f"# {how}\n# torch {torch.__version__}\nrounds,seconds,bytes,accuracy,test_loss,"
                    + ",".join("ms_" + term for term in SPLIT) + "\n")
            for r, s, b, acc, loss, per_round in trace:
                f.write(f"{r},{s:.6f},{b},{acc:.6f},{loss:.6f}," + ",".join(f"{v:.6f}" for v in per_round) + "\n")
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
    t.add_argument("--checkpoint", action="store_true")
    t.add_argument("--progress")
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
