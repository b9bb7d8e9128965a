// Bad input gives one located error line and exit 1: missing file, binary file, unknown op,
// unregistered dialect; an empty file is a valid empty module (as in mlir-opt).
// RUN: not xe-opt %t.does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: %python -c "open(r'%t.empty.mlir', 'w').close()"
// RUN: xe-opt %t.empty.mlir | FileCheck %s --check-prefix=EMPTY
// RUN: %python -c "open(r'%t.bin.mlir', 'wb').write(bytes(range(256)))"
// RUN: not xe-opt %t.bin.mlir 2>&1 | FileCheck %s --check-prefix=BINARY
// RUN: %python -c "open(r'%t.latin1.mlir', 'wb').write(b'func.func @f() {\n  \xff\n}\n')"
// RUN: not xe-opt %t.latin1.mlir 2>&1 | FileCheck %s --check-prefix=UTF8
// RUN: not xe-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// MISSING: xe-opt: error: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
// EMPTY:      module {
// EMPTY-NEXT: }
// BINARY: bin.mlir:1:1: error: unexpected NUL character (is this a binary file?)
// UTF8: latin1.mlir:2:3: error: invalid UTF-8 byte 0xff (is this a binary file?)
// UNKNOWN: bad-input.mlir:[[# @LINE + 2]]:8: error: custom op 'arith.bogus' is unknown
func.func @unknown_op() {
  %0 = arith.bogus : i32
  return
}

// -----
func.func @unregistered() {
  // UNKNOWN: bad-input.mlir:[[# @LINE + 1]]:17: error: operation being parsed with an unregistered dialect
  %0 = "foo.bar"() : () -> i32
  return
}
