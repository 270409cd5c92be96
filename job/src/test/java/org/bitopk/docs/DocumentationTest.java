package org.bitopk.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.commonmark.ext.heading.anchor.IdGenerator;
import org.commonmark.node.AbstractVisitor;
import org.commonmark.node.Code;
import org.commonmark.node.FencedCodeBlock;
import org.commonmark.node.Heading;
import org.commonmark.node.Image;
import org.commonmark.node.Link;
import org.commonmark.node.Node;
import org.commonmark.node.Text;
import org.commonmark.parser.Parser;
import org.junit.jupiter.api.Test;

/**
 * The documents a reader follows: every relative link (and image) in every markdown file of the repository points to
 * a file that exists and, for a {@code #anchor} into a markdown file, to one of its headings (GitHub's heading ids);
 * and the README's set-up commands are exactly the ones continuous integration runs.
 */
class DocumentationTest {

  private static final Parser MARKDOWN = Parser.builder().build();
  /** The line in .ci/run after which it runs the README's set-up commands, and nothing else up to {@link #CI_END}. */
  static final String CI_MARKER = "# The README's set-up commands:";
  /** The line in .ci/run after the README's commands, where the other Spark line's tests begin. */
  static final String CI_END = "# The other Spark line:";

  @Test
  void everyRelativeLinkInEveryMarkdownFileResolves() throws IOException {
    Path root = repositoryRoot();
    List<Path> documents = markdownFiles(root);
    assertTrue(documents.size() >= 10, "expected the module READMEs and job/docs, found " + documents);
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path document : documents) {
      for (String destination : destinations(parse(document))) {
        String problem = problemWith(document, destination);
        checked++;
        if (problem != null) {
          broken.add(root.relativize(document) + ": " + destination + " (" + problem + ")");
        }
      }
    }
    assertTrue(checked > 50, "expected the README's links among the destinations, found " + checked);
    assertEquals(List.of(), broken);
  }

  /** Every document can be found from the README by following links: nothing moved out of it is lost. */
  @Test
  void everyMarkdownFileIsReachableFromTheReadme() throws IOException {
    Path root = repositoryRoot();
    Set<Path> reached = new HashSet<>();
    java.util.ArrayDeque<Path> next = new java.util.ArrayDeque<>(List.of(root.resolve("README.md")));
    while (!next.isEmpty()) {
      Path document = next.poll();
      if (!reached.add(document)) {
        continue;
      }
      for (String destination : destinations(parse(document))) {
        String file = URLDecoder.decode(destination.replaceFirst("#.*$", ""), StandardCharsets.UTF_8);
        Path target = document.getParent().resolve(file).normalize();
        if (!file.isEmpty() && file.endsWith(".md") && Files.isRegularFile(target)) {
          next.add(target);
        }
      }
    }
    List<Path> unreachable = markdownFiles(root).stream().filter(path -> !reached.contains(path))
        .map(root::relativize).collect(Collectors.toList());
    assertEquals(List.of(), unreachable);
  }

  /** The checker itself: a missing file and a missing heading are found, an existing one is not. */
  @Test
  void brokenLinksAndAnchorsAreFound() throws IOException {
    Path root = repositoryRoot();
    Path readme = root.resolve("README.md");
    assertEquals(null, problemWith(readme, "job/docs/run-output.md"));
    assertEquals(null, problemWith(readme, "BENCHMARKS.md#compression-kernels"));
    assertEquals(null, problemWith(readme, "#the-algorithm"));
    assertEquals("no such file", problemWith(readme, "job/docs/no-such-page.md"));
    assertEquals("no heading with this id", problemWith(readme, "BENCHMARKS.md#no-such-section"));
    assertEquals("no heading with this id", problemWith(readme, "#set-up-"));
  }

  @Test
  void readmeSetUpCommandsAreTheOnesContinuousIntegrationRuns() throws IOException {
    Path root = repositoryRoot();
    List<String> readme = readmeSetUpCommands(Files.readString(root.resolve("README.md")));
    List<String> ci = ciCommands(Files.readString(root.resolve(".ci/run")));
    assertEquals(3, readme.size(), "README's set-up block: " + readme);
    assertTrue(readme.contains("mvn -B test"), "the test command must be one of them: " + readme);
    assertEquals(readme, ci);
  }

  /** The commands of the first shell block under the README's "Set up" heading, without comments. */
  static List<String> readmeSetUpCommands(String readme) {
    Node heading = MARKDOWN.parse(readme).getFirstChild();
    while (heading != null && !(heading instanceof Heading && "Set up".equals(text(heading)))) {
      heading = heading.getNext();
    }
    assertTrue(heading != null, "README has no 'Set up' heading");
    for (Node node = heading.getNext(); node != null && !(node instanceof Heading); node = node.getNext()) {
      if (node instanceof FencedCodeBlock block && "bash".equals(block.getInfo())) {
        return commands(block.getLiteral());
      }
    }
    throw new AssertionError("README's 'Set up' section has no bash block");
  }

  /** The commands of .ci/run between {@link #CI_MARKER} and {@link #CI_END} (or the end). */
  static List<String> ciCommands(String script) {
    int marker = script.indexOf(CI_MARKER);
    assertTrue(marker >= 0, ".ci/run lacks the line '" + CI_MARKER + "'");
    int end = script.indexOf(CI_END, marker);
    return commands(script.substring(marker + CI_MARKER.length(), end < 0 ? script.length() : end));
  }

  private static List<String> commands(String shell) {
    return shell.lines().map(line -> line.replaceFirst("(^|\\s)#.*$", "").strip())
        .filter(line -> !line.isEmpty()).collect(Collectors.toList());
  }

  @Test
  void commandsAreReadWithoutCommentsAndBlankLines() {
    String readme = "# x\n\n## Set up\n\ntext\n\n```bash\nmake all   # builds\n\n# note\nmake test\n```\n\n## Next\n";
    assertEquals(List.of("make all", "make test"), readmeSetUpCommands(readme));
    assertEquals(List.of("make all", "make test"), ciCommands("set -e\n" + CI_MARKER + "\nmake all\n# c\nmake test\n"));
    assertEquals(List.of("make all", "make test"), ciCommands("set -e\n" + CI_MARKER + "\nmake all\nmake test\n"
        + CI_END + "\nmake other\n"));
  }

  /** Why {@code destination}, written in {@code document}, does not resolve; null when it does. */
  static String problemWith(Path document, String destination) throws IOException {
    int hash = destination.indexOf('#');
    String file = URLDecoder.decode(hash < 0 ? destination : destination.substring(0, hash), StandardCharsets.UTF_8);
    Path target = file.isEmpty() ? document : document.getParent().resolve(file).normalize();
    if (!Files.exists(target)) {
      return "no such file";
    }
    if (hash >= 0 && target.toString().endsWith(".md")
        && !headingIds(parse(target)).contains(destination.substring(hash + 1))) {
      return "no heading with this id";
    }
    return null;
  }

  private static Node parse(Path document) throws IOException {
    return MARKDOWN.parse(Files.readString(document));
  }

  /** Link and image destinations that name no scheme (http:, mailto:, …): the relative ones. */
  private static List<String> destinations(Node document) {
    List<String> found = new ArrayList<>();
    document.accept(new AbstractVisitor() {
      @Override
      public void visit(Link link) {
        add(link.getDestination());
        visitChildren(link);
      }

      @Override
      public void visit(Image image) {
        add(image.getDestination());
      }

      private void add(String destination) {
        if (!destination.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
          found.add(destination);
        }
      }
    });
    return found;
  }

  /** GitHub's ids of the headings, repeated ones numbered -1, -2, … as GitHub does. */
  private static Set<String> headingIds(Node document) {
    IdGenerator ids = IdGenerator.builder().build();
    Set<String> found = new HashSet<>();
    document.accept(new AbstractVisitor() {
      @Override
      public void visit(Heading heading) {
        found.add(ids.generateId(text(heading)));
      }
    });
    return found;
  }

  /** The plain text of a node: its text and code spans. */
  private static String text(Node node) {
    StringBuilder text = new StringBuilder();
    node.accept(new AbstractVisitor() {
      @Override
      public void visit(Text t) {
        text.append(t.getLiteral());
      }

      @Override
      public void visit(Code code) {
        text.append(code.getLiteral());
      }
    });
    return text.toString();
  }

  private static List<Path> markdownFiles(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(path -> path.toString().endsWith(".md"))
          .filter(path -> { // build output and hidden directories are not documents
            for (Path part : root.relativize(path)) {
              String name = part.toString();
              if (name.equals("target") || name.equals("node_modules") || name.startsWith(".")) {
                return false;
              }
            }
            return true;
          }).sorted().collect(Collectors.toList());
    }
  }

  static Path repositoryRoot() {
    Path start = Path.of(System.getProperty("basedir", System.getProperty("user.dir"))).toAbsolutePath().normalize();
    for (Path dir = start; dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve(".ci/run")) && Files.isRegularFile(dir.resolve("README.md"))) {
        return dir;
      }
    }
    throw new UncheckedIOException(new IOException("no repository root (with .ci/run) above " + start));
  }
}
