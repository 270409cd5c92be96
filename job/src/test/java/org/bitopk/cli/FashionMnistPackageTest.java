package org.bitopk.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Who installs Fashion-MNIST, and with which command: decided without running apt. */
class FashionMnistPackageTest {

  @Test
  void rootInstallsWithAptGetWhetherOrNotSudoExists() {
    for (boolean sudo : new boolean[] {false, true}) {
      assertEquals(FashionMnistPackage.Rights.ROOT, FashionMnistPackage.rights(0, sudo));
    }
    FashionMnistPackage.Plan plan = FashionMnistPackage.plan(FashionMnistPackage.Rights.ROOT);
    assertEquals(List.of(List.of("apt-get", "update", "-qq"),
        List.of("apt-get", "install", "-y", "-qq", "dataset-fashion-mnist")), plan.commands());
    assertEquals("Fashion-MNIST is missing from /usr/share/datasets/fashion-mnist: installing the Debian package "
        + "(apt-get install -y -qq dataset-fashion-mnist)", plan.line());
  }

  @Test
  void anotherUserWithSudoInstallsThroughSudo() {
    assertEquals(FashionMnistPackage.Rights.SUDO, FashionMnistPackage.rights(1000, true));
    FashionMnistPackage.Plan plan = FashionMnistPackage.plan(FashionMnistPackage.Rights.SUDO);
    assertEquals(List.of(List.of("sudo", "apt-get", "update", "-qq"),
        List.of("sudo", "apt-get", "install", "-y", "-qq", "dataset-fashion-mnist")), plan.commands());
    assertTrue(plan.line().endsWith("(sudo apt-get install -y -qq dataset-fashion-mnist)"), plan.line());
  }

  @Test
  void anotherUserWithoutSudoGetsTheExactCommandInOneLine() {
    assertEquals(FashionMnistPackage.Rights.NONE, FashionMnistPackage.rights(1000, false));
    assertEquals(FashionMnistPackage.Rights.NONE, FashionMnistPackage.rights(-1, false));
    FashionMnistPackage.Plan plan = FashionMnistPackage.plan(FashionMnistPackage.Rights.NONE);
    assertFalse(plan.installs());
    assertEquals("Fashion-MNIST is missing from /usr/share/datasets/fashion-mnist and this user can neither install "
        + "packages nor run sudo: as root run 'apt-get update && apt-get install -y dataset-fashion-mnist', or pass "
        + "--data DIR", plan.line());
    assertFalse(plan.line().contains("\n"));
  }

  @Test
  void sudoIsFoundOnlyAsAnExecutableFileOnThePath(@TempDir Path dir) throws IOException {
    Path bin = Files.createDirectory(dir.resolve("bin"));
    Path other = Files.createDirectory(dir.resolve("other"));
    String path = other + ":" + bin;
    assertFalse(FashionMnistPackage.onPath("sudo", path));
    Path sudo = Files.writeString(bin.resolve("sudo"), "#!/bin/sh\n");
    assertFalse(FashionMnistPackage.onPath("sudo", path), "not executable");
    Files.setPosixFilePermissions(sudo, PosixFilePermissions.fromString("rwxr-xr-x"));
    assertTrue(FashionMnistPackage.onPath("sudo", path));
    assertFalse(FashionMnistPackage.onPath("sudo", other.toString()));
    assertFalse(FashionMnistPackage.onPath("sudo", null));
  }

  @Test
  void theDataAreThereWhenTheTrainingImagesAre(@TempDir Path dir) throws IOException {
    assertFalse(FashionMnistPackage.present(dir));
    Files.writeString(dir.resolve("train-images-idx3-ubyte.gz"), "");
    assertTrue(FashionMnistPackage.present(dir));
  }

  /** This JVM's user id is the owner of /proc/self: the same as the files it creates. */
  @Test
  void userIdIsThisProcesssOwner(@TempDir Path dir) throws IOException {
    Path file = Files.writeString(dir.resolve("mine"), "");
    assertEquals(Files.getAttribute(file, "unix:uid"), FashionMnistPackage.userId().orElseThrow().intValue());
  }
}
