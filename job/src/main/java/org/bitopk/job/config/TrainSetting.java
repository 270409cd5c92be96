package org.bitopk.job.config;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * One train flag, declared once: its key (the flag without dashes, also its key in a config file, a grid point
 * and config.json), value type and parser, default, check, help text and parameter label, the modes it applies
 * to and how config.json records it. The command line's option ({@link #option}), the builder's default and
 * check, the refusals of settings a mode does not use and the write-back all come from here. The registry of
 * the train command's settings is {@link TrainSettings}.
 */
public final class TrainSetting<T> {
  private final String key;
  private final Class<T> type;
  private final String label;
  private final String help;
  private final Optional<T> initial;
  private final Optional<T> fallback;
  private final Optional<Function<String, T>> parser;
  private final SettingCheck<T> check;
  private final Function<T, Object> recordedAs;
  private final Predicate<T> omittedWhen;
  private final boolean omittedWhenAbsent;
  private final Set<Mode> modes;
  private final boolean recorded;
  private final boolean runner;

  private TrainSetting(Declaration<T> d) {
    this.key = d.key;
    this.type = d.type;
    this.label = d.label;
    this.help = d.help;
    this.initial = d.initial;
    this.fallback = d.fallback;
    this.parser = d.parser;
    this.check = d.check;
    this.recordedAs = d.recordedAs;
    this.omittedWhen = d.omittedWhen;
    this.omittedWhenAbsent = d.omittedWhenAbsent;
    this.modes = Set.copyOf(d.modes);
    this.recorded = d.recorded;
    this.runner = d.runner;
  }

  /** Starts the declaration of the setting {@code key} whose values are of {@code type}. */
  public static <T> Declaration<T> of(String key, Class<T> type) {
    return new Declaration<>(key, type);
  }

  /** The flag name without dashes: {@code density-up}. */
  public String key() {
    return key;
  }

  /** The flag as typed and as messages name it: {@code --density-up}. */
  public String flag() {
    return TrainFlags.flag(key);
  }

  public Class<T> type() {
    return type;
  }

  public String help() {
    return help;
  }

  /** The parameter label of the help ({@code RHO}); empty for a switch. */
  public String label() {
    return label;
  }

  /**
   * The value a run takes when the setting is left out: the option's own starting value, or the value a run
   * resolves an absent setting to when its problem does not decide otherwise (the workers of a counterexample
   * are its centres, say); empty when the run derives it (the model for the data set, say).
   */
  public Optional<T> defaultValue() {
    return initial.or(() -> fallback);
  }

  /** {@code value}, or the default when it is empty (absent). */
  public T orDefault(Optional<T> value) {
    return value.or(this::defaultValue)
        .orElseThrow(() -> new IllegalStateException(flag() + " has no default"));
  }

  /** The value put through the setting's check; refused with a message naming the flag. */
  public T checked(T value) {
    return check.apply(flag(), value);
  }

  /** Whether {@code mode} uses the setting; a run refuses one it does not unless it states what the mode implies. */
  public boolean appliesTo(Mode mode) {
    return modes.contains(mode);
  }

  /** Whether config.json records the setting (the console's switches and where the settings came from are not). */
  public boolean recorded() {
    return recorded;
  }

  /** Whether the setting says where or how to run rather than what: no key of a grid point. */
  public boolean runner() {
    return runner;
  }

  /** Whether config.json leaves the value out (a value format that is the default, say). */
  public boolean omits(T value) {
    return omittedWhen.test(value);
  }

  /**
   * Whether config.json leaves the setting out when it has no value (a k given directly, say, when there is none),
   * rather than list it without one.
   */
  public boolean omitsAbsent() {
    return omittedWhenAbsent;
  }

  /** The value as config.json records it and messages quote it: a number as such, a choice by its name. */
  public Object recordedForm(T value) {
    return recordedAs.apply(value);
  }

  /** The command-line option, with the declared label, help and starting value; values converted by the parser. */
  public OptionSpec option() {
    OptionSpec.Builder b = OptionSpec.builder(flag()).type(optionType()).description(help);
    if (!label.isEmpty()) {
      b.paramLabel(label);
    }
    initial.ifPresent(b::initialValue);
    parser.ifPresent(parse -> b.converters(value -> parsed(value, parse)));
    return b.build();
  }

  /**
   * A setting with a starting value is a primitive on the command line (as picocli reads an {@code int} field),
   * one without it a boxed value, which picocli leaves unset while the flag is not given.
   */
  private Class<?> optionType() {
    if (initial.isEmpty()) {
      return type;
    }
    return type == Integer.class ? int.class : type == Long.class ? long.class : type == Double.class ? double.class
        : type == Boolean.class ? boolean.class : type;
  }

  /** A choice's own parser, its refusal turned into picocli's, so the message names the flag. */
  private static <T> T parsed(String value, Function<String, T> parse) {
    try {
      return parse.apply(value);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.TypeConversionException(e.getMessage());
    }
  }

  @Override
  public String toString() {
    return flag();
  }

  /** The parts of a setting's declaration, all but the key and type optional. */
  public static final class Declaration<T> {
    private final String key;
    private final Class<T> type;
    private String label = "";
    private String help = "";
    private Optional<T> initial = Optional.empty();
    private Optional<T> fallback = Optional.empty();
    private Optional<Function<String, T>> parser = Optional.empty();
    private SettingCheck<T> check = SettingCheck.none();
    private Function<T, Object> recordedAs = value -> value;
    private Predicate<T> omittedWhen = value -> false;
    private boolean omittedWhenAbsent;
    private Set<Mode> modes = EnumSet.allOf(Mode.class);
    private boolean recorded = true;
    private boolean runner;

    private Declaration(String key, Class<T> type) {
      this.key = Objects.requireNonNull(key);
      this.type = Objects.requireNonNull(type);
    }

    /** The parameter label of the help, e.g. {@code RHO}. */
    public Declaration<T> label(String label) {
      this.label = label;
      return this;
    }

    /** The help text; {@code ${DEFAULT-VALUE}} and {@code ${bundle:...}} as picocli reads them. */
    public Declaration<T> help(String help) {
      this.help = help;
      return this;
    }

    /** The value the option starts with; it is there whether or not the flag is given. */
    public Declaration<T> byDefault(T value) {
      this.initial = Optional.of(value);
      return this;
    }

    /** No starting value (a given value must be told from none); an absent one resolves to this. */
    public Declaration<T> whenAbsent(T value) {
      this.fallback = Optional.of(value);
      return this;
    }

    /** How a text becomes a value, for types other than texts, numbers and switches. */
    public Declaration<T> parsedBy(Function<String, T> parse) {
      this.parser = Optional.of(parse);
      return this;
    }

    public Declaration<T> checkedBy(SettingCheck<T> check) {
      this.check = check;
      return this;
    }

    /** How config.json and messages write a value (its name, for a choice). */
    public Declaration<T> recordedAs(Function<T, Object> form) {
      this.recordedAs = form;
      return this;
    }

    /** Values config.json leaves out rather than records. */
    public Declaration<T> omittedWhen(Predicate<T> omitted) {
      this.omittedWhen = omitted;
      return this;
    }

    /** Left out of config.json when it has no value, rather than listed without one. */
    public Declaration<T> omittedWhenAbsent() {
      this.omittedWhenAbsent = true;
      return this;
    }

    /** The modes the setting applies to (all, unless said). */
    public Declaration<T> modes(Mode first, Mode... rest) {
      this.modes = EnumSet.of(first, rest);
      return this;
    }

    /** Not part of config.json: where the settings came from, or the console's switches. */
    public Declaration<T> notRecorded() {
      this.recorded = false;
      return this;
    }

    /** Says where or how to run rather than what; refused as a key of a grid point. */
    public Declaration<T> runner() {
      this.runner = true;
      return this;
    }

    public TrainSetting<T> build() {
      return new TrainSetting<>(this);
    }
  }
}
