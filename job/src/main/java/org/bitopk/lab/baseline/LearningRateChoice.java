package org.bitopk.lab.baseline;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Each system's learning rate, chosen from a small grid by the rounds it needed to reach the target accuracy
 * ({@code lr-choice.json}). Rounds, not seconds: they do not depend on the machine's load or the links, so the
 * choice can be made on any machine beforehand and the timed runs then use it.
 *
 * <p>The rule: the fewest rounds to the target; when no rate of the grid reached it within the round budget, the
 * highest final accuracy; ties go to the rate listed first.
 *
 * @param target the accuracy the rounds were counted to
 * @param maxRounds the grid's round budget per point
 * @param systems per system (in the order run), the chosen rate and every point of its grid
 */
public record LearningRateChoice(double target, long maxRounds, Map<String, Chosen> systems) {
  public static final String FILE = "lr-choice.json";
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /**
   * One point of the grid: a system trained at {@code lr} for {@code rounds} rounds; {@code roundsToTarget} is the
   * first evaluation at or above the target, -1 when none was.
   */
  public record Point(double lr, long roundsToTarget, long rounds, double finalAccuracy) {
    boolean reached() {
      return roundsToTarget >= 0;
    }

    String text(long maxRounds) {
      return reached() ? String.format(Locale.ROOT, "%s: %d rounds", ComparisonTable.number(lr), roundsToTarget)
          : String.format(Locale.ROOT, "%s: not in %d rounds (%.2f %%)", ComparisonTable.number(lr), rounds,
              100 * finalAccuracy);
    }
  }

  /** A system's chosen rate and its grid. */
  public record Chosen(double lr, List<Point> grid) {
    public Chosen {
      grid = List.copyOf(grid);
    }
  }

  public LearningRateChoice {
    systems = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(systems));
  }

  /** The grid's best point by the rule above. */
  static Point best(List<Point> grid) {
    Comparator<Point> rule = Comparator.comparing((Point p) -> !p.reached())
        .thenComparingLong(p -> p.reached() ? p.roundsToTarget() : 0)
        .thenComparingDouble(p -> p.reached() ? 0 : -p.finalAccuracy());
    Point best = grid.get(0);
    for (Point p : grid) {
      if (rule.compare(p, best) < 0) {
        best = p;
      }
    }
    return best;
  }

  /** The system's point of the grid at {@code trace}: rounds to the target (-1: not reached), rounds, accuracy. */
  static Point point(double lr, Trace trace, double target) {
    return new Point(lr, trace.firstReaching(target).map(TracePoint::rounds).orElse(-1L),
        trace.last().map(TracePoint::rounds).orElse(0L), trace.last().map(TracePoint::accuracy).orElse(0.0));
  }

  /** For the table's details: the chosen rate and what each rate of the grid took. */
  String describe(String system) {
    Chosen c = systems.get(system);
    return String.format(Locale.ROOT, "lr %s chosen by rounds to %.1f %% from the grid (%s)",
        ComparisonTable.number(c.lr()), 100 * target,
        c.grid().stream().map(p -> p.text(maxRounds)).collect(Collectors.joining("; ")));
  }

  Optional<Chosen> of(String system) {
    return Optional.ofNullable(systems.get(system));
  }

  String toJson() {
    try {
      return JSON.writeValueAsString(this) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Reads {@code text} (the file {@code source}).
   *
   * @throws IllegalArgumentException naming the file and what is wrong
   */
  static LearningRateChoice parse(String source, String text) {
    LearningRateChoice c;
    try {
      c = JSON.readValue(text, LearningRateChoice.class);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(source + ": not a " + FILE + " written by time-to-accuracy --lr-grid ("
          + e.getOriginalMessage().lines().findFirst().orElse("") + ")");
    }
    if (c.systems() == null || c.systems().isEmpty()) {
      throw new IllegalArgumentException(source + ": names no system");
    }
    for (Map.Entry<String, Chosen> e : c.systems().entrySet()) {
      if (e.getValue() == null || !(e.getValue().lr() > 0) || !Double.isFinite(e.getValue().lr())) {
        throw new IllegalArgumentException(source + ": system " + e.getKey() + " has no learning rate > 0");
      }
    }
    return c;
  }

  /** Builds a choice system by system, in the order the grid runs them. */
  static final class Builder {
    private final double target;
    private final long maxRounds;
    private final Map<String, Chosen> systems = new LinkedHashMap<>();

    Builder(double target, long maxRounds) {
      this.target = target;
      this.maxRounds = maxRounds;
    }

    Builder add(String system, List<Point> grid) {
      systems.put(system, new Chosen(best(grid).lr(), new ArrayList<>(grid)));
      return this;
    }

    LearningRateChoice build() {
      return new LearningRateChoice(target, maxRounds, systems);
    }
  }
}
