package org.bitopk.lab.baseline;

import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * PyTorch DistributedDataParallel as a Spark user runs it today (TorchDistributor): {@code ddp-dense} (fp32
 * all-reduce), {@code ddp-fp16} (the fp16 compression hook), {@code ddp-powersgd-1} and {@code ddp-powersgd-4}
 * (PowerSGD with error feedback at rank 1 and 4). Not among the defaults: they need PyTorch
 * ({@link PyTorchPeer#INSTALL}).
 */
public final class DdpSystems implements SystemFamily {
  @Override
  public Optional<ComparedSystem> parse(String name) {
    if (!name.startsWith(DdpSystem.PREFIX)) {
      return Optional.empty();
    }
    String variant = name.substring(DdpSystem.PREFIX.length());
    if (!DdpSystem.VARIANTS.containsKey(variant)) {
      throw new IllegalArgumentException("--systems: unknown DDP system '" + name + "'; expected " + names());
    }
    PyTorchPeer.missing().ifPresent(line -> {
      throw new IllegalArgumentException("--systems: " + name + ": " + line);
    });
    return Optional.of(new DdpSystem(variant));
  }

  @Override
  public List<String> defaults() {
    return List.of();
  }

  @Override
  public String names() {
    return String.join(", ", new TreeSet<>(DdpSystem.VARIANTS.keySet()).stream().map(v -> DdpSystem.PREFIX + v)
        .toList()) + " (PyTorch DDP)";
  }
}
