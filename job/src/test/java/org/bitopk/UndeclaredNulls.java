package org.bitopk;

import com.sun.source.tree.AnnotatedTypeTree;
import com.sun.source.tree.AnnotationTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.ImportTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.ModifiersTree;
import com.sun.source.tree.PrimitiveTypeTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.DocTrees;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.TreeScanner;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import javax.lang.model.element.Modifier;
import javax.lang.model.type.TypeKind;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

/**
 * Finds declarations whose javadoc says they may be null ("or null", "null when", "null: ...") but whose type does
 * not carry JSpecify's {@code @Nullable}: a parameter named by {@code @param}, a return described by the method's text
 * or {@code @return}, a field, or a record component named by the record's {@code @param}. Reads the sources with
 * the JDK's own parser, so what it checks is what javac sees.
 */
final class UndeclaredNulls {
  static final String NULLABLE = "org.jspecify.annotations.Nullable";

  /** The words that say a value may be null; "never null" and "not null" say the opposite and do not match. */
  private static final Pattern SAYS_NULL = Pattern.compile(
      "\\b(or|else) null\\b|\\bnull (when|if|where|unless|for|without)\\b|(?<!\\bnot |\\bnever )\\bnull:"
          + "|\\b(may|can|might) be null\\b",
      Pattern.CASE_INSENSITIVE);
  private static final Pattern TAG = Pattern.compile("(?m)^\\s*@(\\w+)(?:\\s+(\\S+))?");

  private UndeclaredNulls() {}

  /**
   * The violations in the {@code .java} files under {@code sources}, one line each: the file (relative to
   * {@code root}), the declaration and what of it.
   */
  static List<String> in(Path root, List<Path> sources) throws IOException {
    List<JavaFileObject> files = new ArrayList<>();
    for (Path dir : sources) {
      try (Stream<Path> walk = Files.walk(dir)) {
        for (Path p : walk.filter(p -> p.toString().endsWith(".java")).sorted().collect(Collectors.toList())) {
          files.add(source(root.relativize(p).toString(), Files.readString(p)));
        }
      }
    }
    return check(files);
  }

  /** The violations in one source text (samples). */
  static List<String> inSource(String name, String text) throws IOException {
    return check(List.of(source(name, text)));
  }

  private static JavaFileObject source(String name, String text) {
    return new SimpleJavaFileObject(URI.create("string:///" + name.replace('\\', '/')), JavaFileObject.Kind.SOURCE) {
      @Override
      public CharSequence getCharContent(boolean ignoreEncodingErrors) {
        return text;
      }
    };
  }

  private static List<String> check(List<JavaFileObject> files) throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    JavacTask task = (JavacTask) javac.getTask(null, null, d -> { }, List.of("-proc:none"), null, files);
    DocTrees docs = DocTrees.instance(task);
    List<String> violations = new ArrayList<>();
    for (CompilationUnitTree unit : task.parse()) {
      boolean imported = unit.getImports().stream().map(ImportTree::getQualifiedIdentifier).map(Tree::toString)
          .anyMatch(NULLABLE::equals);
      String file = unit.getSourceFile().getName();
      new TreePathScanner<Void, Void>() {
        @Override
        public Void visitClass(ClassTree c, Void unused) {
          String doc = docs.getDocComment(getCurrentPath());
          if (doc != null) {
            for (VariableTree component : recordComponents(c)) {
              String text = paramText(doc, component.getName().toString());
              if (saysNull(text) && !nullable(component.getModifiers(), component.getType(), imported)) {
                violations.add(file + ": record " + c.getSimpleName() + " component " + component.getName());
              }
            }
          }
          return super.visitClass(c, unused);
        }

        @Override
        public Void visitMethod(MethodTree m, Void unused) {
          String doc = docs.getDocComment(getCurrentPath());
          if (doc != null) {
            String name = m.getReturnType() == null ? "constructor" : "method " + m.getName();
            for (VariableTree p : m.getParameters()) {
              if (saysNull(paramText(doc, p.getName().toString()))
                  && !nullable(p.getModifiers(), p.getType(), imported)) {
                violations.add(file + ": " + name + " parameter " + p.getName());
              }
            }
            boolean returns = m.getReturnType() != null && !(m.getReturnType() instanceof PrimitiveTypeTree t
                && t.getPrimitiveTypeKind() == TypeKind.VOID);
            if (returns && (saysNull(mainText(doc)) || saysNull(tagText(doc, "return", null)))
                && !nullable(m.getModifiers(), m.getReturnType(), imported)) {
              violations.add(file + ": " + name + " return");
            }
            if (!returns && saysNull(mainText(doc)) && m.getParameters().stream()
                .noneMatch(p -> nullable(p.getModifiers(), p.getType(), imported))) {
              violations.add(file + ": " + name + " (its text names a null, none of its parameters may be)");
            }
          }
          return super.visitMethod(m, unused);
        }

        @Override
        public Void visitVariable(VariableTree v, Void unused) {
          String doc = docs.getDocComment(getCurrentPath());
          if (doc != null && saysNull(mainText(doc)) && !nullable(v.getModifiers(), v.getType(), imported)) {
            violations.add(file + ": field " + v.getName());
          }
          return super.visitVariable(v, unused);
        }
      }.scan(unit, null);
    }
    return violations;
  }

  /** A record's components: its instance fields, as the parser declares them (a record's own fields are static). */
  private static List<VariableTree> recordComponents(ClassTree c) {
    if (c.getKind() != Tree.Kind.RECORD) {
      return List.of();
    }
    return c.getMembers().stream().filter(m -> m instanceof VariableTree).map(m -> (VariableTree) m)
        .filter(v -> !v.getModifiers().getFlags().contains(Modifier.STATIC)).collect(Collectors.toList());
  }

  /** Whether the declaration's modifiers or any part of its type carry JSpecify's {@code @Nullable}. */
  private static boolean nullable(ModifiersTree modifiers, Tree type, boolean imported) {
    if (modifiers.getAnnotations().stream().anyMatch(a -> isNullable(a, imported))) {
      return true;
    }
    boolean[] found = {false};
    if (type != null) {
      new TreeScanner<Void, Void>() {
        @Override
        public Void visitAnnotatedType(AnnotatedTypeTree t, Void unused) {
          if (t.getAnnotations().stream().anyMatch(a -> isNullable(a, imported))) {
            found[0] = true;
          }
          return super.visitAnnotatedType(t, unused);
        }
      }.scan(type, null);
    }
    return found[0];
  }

  private static boolean isNullable(AnnotationTree a, boolean imported) {
    String name = a.getAnnotationType().toString();
    return name.equals(NULLABLE) || (imported && name.equals("Nullable"));
  }

  private static boolean saysNull(String text) {
    return SAYS_NULL.matcher(text.replace("{@code null}", "null")).find();
  }

  /** The javadoc's text before its first block tag. */
  private static String mainText(String doc) {
    Matcher tag = TAG.matcher(doc);
    return tag.find() ? doc.substring(0, tag.start()) : doc;
  }

  private static String paramText(String doc, String name) {
    return tagText(doc, "param", name);
  }

  /** The text of the block tags {@code @tag} (for {@code name} when given), up to the next block tag. */
  private static String tagText(String doc, String tag, String name) {
    StringBuilder text = new StringBuilder();
    Matcher m = TAG.matcher(doc);
    boolean found = m.find();
    while (found) {
      int start = m.start();
      boolean wanted = m.group(1).equals(tag) && (name == null || name.equals(m.group(2)));
      found = m.find();
      if (wanted) {
        text.append(doc, start, found ? m.start() : doc.length()).append('\n');
      }
    }
    return text.toString();
  }

  /**
   * The main sources of every module under the repository {@code root}: each {@code src/main/java} and each Spark
   * line's {@code src/line/LINE/java}, build output and hidden directories left out.
   */
  static List<Path> mainSources(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(Files::isDirectory)
          .filter(p -> root.relativize(p).toString().isEmpty() || StreamSupport.stream(root.relativize(p).spliterator(),
              false).map(Path::toString).noneMatch(part -> part.equals("target") || part.startsWith(".")))
          .filter(p -> p.endsWith(Path.of("src", "main", "java")) || isLineSources(p))
          .sorted().collect(Collectors.toList());
    }
  }

  /** The repository's root: the first directory above the module's with {@code .ci/run} and README.md. */
  static Path repositoryRoot() {
    Path start = Path.of(System.getProperty("basedir", System.getProperty("user.dir"))).toAbsolutePath().normalize();
    for (Path dir = start; dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve(".ci/run")) && Files.isRegularFile(dir.resolve("README.md"))) {
        return dir;
      }
    }
    throw new IllegalStateException("no repository root (with .ci/run) above " + start);
  }

  private static boolean isLineSources(Path p) {
    Path line = p.getParent();
    return p.endsWith("java") && line != null && line.getParent() != null
        && line.getParent().endsWith(Path.of("src", "line"));
  }
}
