;; Exact int8 dot-product scan for brute-force vector search.
;;
;; Compiled by scripts/build-vector-kernel.mjs into src/search/vector-kernel-wasm.ts;
;; rerun that script after editing this file (a test fails if they drift apart).
;;
;; The memory is exported without a maximum so the JS side can grow it as
;; vectors are added; the layout inside it is entirely the caller's business.
(module
  (memory (export "memory") 1)

  ;; For each of `count` vectors of `dims` int8 components stored back to back
  ;; at `base`, write the int32 dot product with the int8 query at `query` to
  ;; `out + 4 * i`. `dims` must be a positive multiple of 16 (one v128 lane
  ;; group); the caller checks that, the kernel does not.
  ;;
  ;; Overflow: |product| <= 127 * 128, so i32x4.dot_i16x8_s cannot overflow per
  ;; pair and the i32 accumulator holds any dims below ~130k.
  (func (export "scan")
    (param $query i32) (param $base i32) (param $count i32) (param $dims i32) (param $out i32)
    (local $outEnd i32)
    (local $vectorEnd i32)
    (local $q i32)
    (local $acc v128)
    (local $x v128)
    (local $y v128)

    ;; Nothing to do, and the do-while loops below would run once otherwise.
    (if (i32.or (i32.eqz (local.get $count)) (i32.eqz (local.get $dims)))
      (then (return)))

    (local.set $outEnd
      (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))))

    (loop $vectors
      (local.set $acc (v128.const i32x4 0 0 0 0))
      (local.set $q (local.get $query))
      (local.set $vectorEnd (i32.add (local.get $base) (local.get $dims)))

      (loop $chunks
        (local.set $x (v128.load (local.get $base)))
        (local.set $y (v128.load (local.get $q)))
        ;; Widen to i16 so the pairwise multiply-add is exact, then fold both
        ;; halves into four i32 partial sums.
        (local.set $acc
          (i32x4.add
            (local.get $acc)
            (i32x4.add
              (i32x4.dot_i16x8_s
                (i16x8.extend_low_i8x16_s (local.get $x))
                (i16x8.extend_low_i8x16_s (local.get $y)))
              (i32x4.dot_i16x8_s
                (i16x8.extend_high_i8x16_s (local.get $x))
                (i16x8.extend_high_i8x16_s (local.get $y))))))
        (local.set $base (i32.add (local.get $base) (i32.const 16)))
        (local.set $q (i32.add (local.get $q) (i32.const 16)))
        (br_if $chunks (i32.lt_u (local.get $base) (local.get $vectorEnd))))

      ;; Horizontal sum of the four lanes, once per vector.
      (i32.store
        (local.get $out)
        (i32.add
          (i32.add
            (i32x4.extract_lane 0 (local.get $acc))
            (i32x4.extract_lane 1 (local.get $acc)))
          (i32.add
            (i32x4.extract_lane 2 (local.get $acc))
            (i32x4.extract_lane 3 (local.get $acc)))))
      (local.set $out (i32.add (local.get $out) (i32.const 4)))
      (br_if $vectors (i32.lt_u (local.get $out) (local.get $outEnd))))))
