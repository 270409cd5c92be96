package org.bitopk.job.engine;

import org.bitopk.compression.Compressor;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.SparseVector;

/**
 * The bidirectional schemes written out sequentially from the papers' pseudo-code, in float32 and in the order of
 * operations the README states for each (the job's), independent of the engine: no Spark, no replicas, no codec.
 * Uplink: EF14 (c_i = e_i + lr·∇f_i, send C(c_i), e_i = c_i − C(c_i)) or Artemis/EF21 (h_i⁰ = ∇f_i sent whole,
 * then send C(∇f_i − h_i), h_i ← h_i + α_up·C(·); server step lr·(h + mean), h ← h + α_up·mean; α_up = 1 is EF21).
 * Downlink: server EF (DoubleSqueeze: c = e_s + s, send C(c), e_s = c − C(c), w ← w − C(c)) or MCM with r = x − ŵ
 * and q = (1 − α_dwn)·Ω_prev (c = r − (s − q), Ω = C(c), r ← c − Ω, ŵ ← ŵ − (q − Ω); α_dwn = 1 is EF21-P).
 */
final class SchemeReference {
  /** ∇f_i at w for worker i in round t (the minibatch of round t). */
  interface Gradients {
    float[] of(int worker, int round, float[] w);
  }

  /** Called before each round with the workers' model ŵ and the central model x (= ŵ for server EF). */
  interface Observer {
    void beforeRound(int round, float[] workersModel, float[] centralModel);
  }

  /** The models after the last round. */
  record Result(float[] workersModel, float[] centralModel) {}

  private SchemeReference() {}

  /**
   * @param alphaUp null for EF14, else Artemis' α_up (1 = EF21)
   * @param alphaDown null for server EF, else MCM's α_dwn (1 = EF21-P)
   */
  static Result run(float[] x0, int workers, int rounds, Gradients gradients, String uplink, String downlink,
      int kUp, int kDown, Float alphaUp, Float alphaDown, float lr, long seed, Observer observer) {
    float[] w = x0.clone();
    int d = w.length;
    Compressor[] up = new Compressor[workers];
    for (int i = 0; i < workers; i++) {
      up[i] = CompressorSpec.parse(uplink).create(RandomStreams.worker(seed, i));
    }
    Compressor down = CompressorSpec.parse(downlink).create(RandomStreams.server(seed));
    float[][] memory = new float[workers][];   // e_i (EF14) or h_i (Artemis)
    float[] h = new float[d];
    boolean started = false;
    float[] serverMemory = new float[d];       // e_s (server EF) or r = x − ŵ (MCM)
    SparseVector previous = null;
    for (int t = 0; t < rounds; t++) {
      float[] x = w.clone();
      if (alphaDown != null) {
        for (int j = 0; j < d; j++) {
          x[j] = w[j] + serverMemory[j];
        }
      }
      observer.beforeRound(t, w.clone(), x);
      float[] sum = new float[d];
      boolean[] touched = new boolean[d];
      for (int i = 0; i < workers; i++) {
        float[] grad = gradients.of(i, t, w);
        SparseVector sent;
        if (alphaUp == null) {
          float[] e = memory[i] == null ? new float[d] : memory[i];
          float[] c = new float[d];
          for (int j = 0; j < d; j++) {
            c[j] = e[j] + lr * grad[j];
          }
          sent = up[i].message(c, kUp);
          for (int n = 0; n < sent.nnz(); n++) {
            c[sent.index(n)] = c[sent.index(n)] - sent.value(n);
          }
          memory[i] = c;
        } else if (memory[i] == null) {
          memory[i] = grad.clone();
          float[] all = grad.clone();
          int[] indices = new int[d];
          for (int j = 0; j < d; j++) {
            indices[j] = j;
          }
          sent = SparseVector.of(d, indices, all);
        } else {
          float[] c = new float[d];
          for (int j = 0; j < d; j++) {
            c[j] = grad[j] - memory[i][j];
          }
          sent = up[i].message(c, kUp);
          for (int n = 0; n < sent.nnz(); n++) {
            int j = sent.index(n);
            memory[i][j] = memory[i][j] + (alphaUp == 1f ? sent.value(n) : alphaUp * sent.value(n));
          }
        }
        for (int n = 0; n < sent.nnz(); n++) {
          sum[sent.index(n)] += sent.value(n);
          touched[sent.index(n)] = true;
        }
      }
      float[] step = new float[d];
      for (int j = 0; j < d; j++) {
        float a = touched[j] ? sum[j] / workers : 0f;
        if (alphaUp == null) {
          step[j] = a;
        } else if (!started || alphaUp == 1f) {
          if (touched[j]) {
            h[j] = h[j] + a;
          }
          step[j] = lr * h[j];
        } else {
          step[j] = touched[j] ? lr * (h[j] + a) : lr * h[j];
          if (touched[j]) {
            h[j] = h[j] + alphaUp * a;
          }
        }
      }
      started = true;
      if (alphaDown == null) {
        float[] c = new float[d];
        for (int j = 0; j < d; j++) {
          c[j] = serverMemory[j] + step[j];
        }
        SparseVector sent = down.message(c, kDown);
        for (int n = 0; n < sent.nnz(); n++) {
          int j = sent.index(n);
          c[j] = c[j] - sent.value(n);
          w[j] = w[j] - sent.value(n);
        }
        serverMemory = c;
        continue;
      }
      float[] input = step.clone();
      float[] q = new float[d];
      boolean[] inQ = new boolean[d];
      if (previous != null && alphaDown != 1f) {
        for (int n = 0; n < previous.nnz(); n++) {
          int j = previous.index(n);
          q[j] = (1f - alphaDown) * previous.value(n);
          inQ[j] = true;
          input[j] = input[j] - q[j];
        }
      }
      float[] c = new float[d];
      for (int j = 0; j < d; j++) {
        c[j] = serverMemory[j] + -1f * input[j];
      }
      SparseVector omega = down.message(c, kDown);
      float[] omegaDense = new float[d];
      boolean[] inOmega = new boolean[d];
      for (int n = 0; n < omega.nnz(); n++) {
        int j = omega.index(n);
        omegaDense[j] = omega.value(n);
        inOmega[j] = true;
        c[j] = c[j] - omega.value(n);
      }
      serverMemory = c;
      for (int j = 0; j < d; j++) {
        if (inQ[j] && inOmega[j]) {
          w[j] = w[j] - (q[j] - omegaDense[j]);
        } else if (inOmega[j]) {
          w[j] = w[j] - -omegaDense[j];
        } else if (inQ[j]) {
          w[j] = w[j] - q[j];
        }
      }
      previous = omega;
    }
    float[] x = w.clone();
    if (alphaDown != null) {
      for (int j = 0; j < d; j++) {
        x[j] = w[j] + serverMemory[j];
      }
    }
    return new Result(w, x);
  }
}
