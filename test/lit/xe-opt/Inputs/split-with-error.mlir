func.func @ok1() {
  return
}

// -----
// The error is on line 8 of this file (line 3 of the chunk).
func.func @bad() {
  %0 = arith.addi %x, %x : i32
  return
}

// -----
func.func @ok2() {
  return
}
