;; Exact int8 dot-product scan for brute-force vector search.
;;
;; Compiled by scripts/build-vector-kernel.mjs into src/search/vector-kernel-wasm.ts;
;; rerun that script after editing this file (a test fails if they drift apart).
;;
;; The memory is imported, shared, so that a second thread can scan the
;; vectors the main thread keeps (see vector-scan-thread.ts), and re-exported
;; for convenience. The JS side grows it as vectors are added (up to 2 GiB);
;; the layout inside it is entirely the caller's business.
;;
;; Why the vectors are stored dimension-pair first: the query of a search is
;; sparse. The built-in embedder hashes a query's few words into a few dozen
;; of its 256 dimensions (on a 250k-file tree's sampled queries: 15 at the
;; median, 46 at most), and a dimension the query does not use adds nothing
;; to any dot product. So the vectors are kept in tiles of 1,024, and inside
;; a tile by pairs of dimensions: pair j's run is the 1,024 vectors'
;; components 2j and 2j+1, vector by vector (2 KiB). A scan streams only the
;; runs of the pairs the query uses, from every tile: for a typical query an
;; eighth of the bytes, and the result is the same exact int8 dot product.
;; A tile's 1,024 scores (4 KiB) stay in the first-level cache while each
;; run adds to them. (Tiles of 32, one cache line per pair with the scores
;; in registers, read scattered lines and measured twice as slow.)
;;
;; Per pair, 16 bytes of a run (8 vectors) are sign-extended to two i16x8
;; (each four vectors' two components) and i32x4.dot_i16x8_s multiplies them
;; by the pair's two query components (repeated in the query table as
;; [q_2j, q_2j+1] x 4), giving four vectors' partial sums per instruction.
;; A lane gains at most 2 * 127 * 127 per pair, so for dims below
;; 2^31 / 127^2 (133,000) it cannot overflow.
(module
  (import "env" "memory" (memory 1 32768 shared))
  (export "memory" (memory 0))

  ;; Scores `count` vectors (tiles of 1,024 from `base`, each dims / 2 runs
  ;; of 2,048 bytes) against the query's table at `pairs`: `pairCount`
  ;; entries of 32 bytes, each the pair's two query components as i16
  ;; repeated four times (16 bytes) and its run's byte offset in a tile
  ;; (i32, 2,048 * j). Writes one int32 per vector to `out`, in whole tiles:
  ;; the last tile's scores past `count` are written too (of whatever that
  ;; tile holds), so `out` needs room for `count` rounded up to 1,024.
  (func (export "scan")
    (param $pairs i32) (param $pairCount i32) (param $base i32) (param $count i32) (param $dims i32) (param $out i32)
    (local $tileBytes i32)
    (local $tileOut i32)
    (local $outEnd i32)
    (local $pairsEnd i32)
    (local $entry i32)
    (local $at i32)
    (local $o i32)
    (local $at2 i32)
    (local $q v128) (local $x v128) (local $r v128) (local $y v128)
    (if (i32.or (i32.eqz (local.get $count)) (i32.eqz (local.get $dims)))
      (then (return)))
    ;; 1,024 vectors of `dims` bytes per tile, and 4,096 bytes of scores.
    (local.set $tileBytes (i32.shl (local.get $dims) (i32.const 10)))
    (local.set $outEnd
      (i32.add (local.get $out)
        (i32.shl (i32.and (i32.add (local.get $count) (i32.const 1023)) (i32.const -1024)) (i32.const 2))))
    (local.set $pairsEnd (i32.add (local.get $pairs) (i32.shl (local.get $pairCount) (i32.const 5))))
    (loop $tiles
      (local.set $tileOut (i32.add (local.get $out) (i32.const 4096)))
      (local.set $o (local.get $out))
      (loop $zero
        (v128.store (local.get $o) (v128.const i32x4 0 0 0 0))
        (local.set $o (i32.add (local.get $o) (i32.const 16)))
        (br_if $zero (i32.lt_u (local.get $o) (local.get $tileOut))))
      ;; Two pairs at a time while two are left, so each score is loaded and
      ;; stored once for both; then the last one, if the count is odd.
      (local.set $entry (local.get $pairs))
      (block $pairsDone
        (loop $twoPairs
          (br_if $pairsDone (i32.ge_u (i32.add (local.get $entry) (i32.const 32)) (local.get $pairsEnd)))
          (local.set $q (v128.load (local.get $entry)))
          (local.set $r (v128.load offset=32 (local.get $entry)))
          (local.set $at (i32.add (local.get $base) (i32.load offset=16 (local.get $entry))))
          (local.set $at2 (i32.add (local.get $base) (i32.load offset=48 (local.get $entry))))
          (local.set $o (local.get $out))
          ;; 32 vectors (64 bytes of each pair's run) per step, into their 32 scores.
          (loop $groups
            (local.set $x (v128.load offset=0 (local.get $at)))
            (local.set $y (v128.load offset=0 (local.get $at2)))
            (v128.store offset=0 (local.get $o)
              (i32x4.add (v128.load offset=0 (local.get $o))
                (i32x4.add
                  (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $x)) (local.get $q))
                  (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $y)) (local.get $r)))))
            (v128.store offset=16 (local.get $o)
              (i32x4.add (v128.load offset=16 (local.get $o))
                (i32x4.add
                  (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $x)) (local.get $q))
                  (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $y)) (local.get $r)))))
            (local.set $x (v128.load offset=16 (local.get $at)))
            (local.set $y (v128.load offset=16 (local.get $at2)))
            (v128.store offset=32 (local.get $o)
              (i32x4.add (v128.load offset=32 (local.get $o))
                (i32x4.add
                  (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $x)) (local.get $q))
                  (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $y)) (local.get $r)))))
            (v128.store offset=48 (local.get $o)
              (i32x4.add (v128.load offset=48 (local.get $o))
                (i32x4.add
                  (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $x)) (local.get $q))
                  (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $y)) (local.get $r)))))
            (local.set $x (v128.load offset=32 (local.get $at)))
            (local.set $y (v128.load offset=32 (local.get $at2)))
            (v128.store offset=64 (local.get $o)
              (i32x4.add (v128.load offset=64 (local.get $o))
                (i32x4.add
                  (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $x)) (local.get $q))
                  (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $y)) (local.get $r)))))
            (v128.store offset=80 (local.get $o)
              (i32x4.add (v128.load offset=80 (local.get $o))
                (i32x4.add
                  (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $x)) (local.get $q))
                  (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $y)) (local.get $r)))))
            (local.set $x (v128.load offset=48 (local.get $at)))
            (local.set $y (v128.load offset=48 (local.get $at2)))
            (v128.store offset=96 (local.get $o)
              (i32x4.add (v128.load offset=96 (local.get $o))
                (i32x4.add
                  (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $x)) (local.get $q))
                  (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $y)) (local.get $r)))))
            (v128.store offset=112 (local.get $o)
              (i32x4.add (v128.load offset=112 (local.get $o))
                (i32x4.add
                  (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $x)) (local.get $q))
                  (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $y)) (local.get $r)))))
            (local.set $at (i32.add (local.get $at) (i32.const 64)))
            (local.set $at2 (i32.add (local.get $at2) (i32.const 64)))
            (local.set $o (i32.add (local.get $o) (i32.const 128)))
            (br_if $groups (i32.lt_u (local.get $o) (local.get $tileOut))))
          (local.set $entry (i32.add (local.get $entry) (i32.const 64)))
          (br $twoPairs)))
      (if (i32.lt_u (local.get $entry) (local.get $pairsEnd))
        (then
          (local.set $q (v128.load (local.get $entry)))
          (local.set $at (i32.add (local.get $base) (i32.load offset=16 (local.get $entry))))
          (local.set $o (local.get $out))
          (loop $lastGroups
            (local.set $x (v128.load offset=0 (local.get $at)))
            (v128.store offset=0 (local.get $o)
              (i32x4.add (v128.load offset=0 (local.get $o))
                (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $x)) (local.get $q))))
            (v128.store offset=16 (local.get $o)
              (i32x4.add (v128.load offset=16 (local.get $o))
                (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $x)) (local.get $q))))
            (local.set $x (v128.load offset=16 (local.get $at)))
            (v128.store offset=32 (local.get $o)
              (i32x4.add (v128.load offset=32 (local.get $o))
                (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $x)) (local.get $q))))
            (v128.store offset=48 (local.get $o)
              (i32x4.add (v128.load offset=48 (local.get $o))
                (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $x)) (local.get $q))))
            (local.set $x (v128.load offset=32 (local.get $at)))
            (v128.store offset=64 (local.get $o)
              (i32x4.add (v128.load offset=64 (local.get $o))
                (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $x)) (local.get $q))))
            (v128.store offset=80 (local.get $o)
              (i32x4.add (v128.load offset=80 (local.get $o))
                (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $x)) (local.get $q))))
            (local.set $x (v128.load offset=48 (local.get $at)))
            (v128.store offset=96 (local.get $o)
              (i32x4.add (v128.load offset=96 (local.get $o))
                (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $x)) (local.get $q))))
            (v128.store offset=112 (local.get $o)
              (i32x4.add (v128.load offset=112 (local.get $o))
                (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $x)) (local.get $q))))
            (local.set $at (i32.add (local.get $at) (i32.const 64)))
            (local.set $o (i32.add (local.get $o) (i32.const 128)))
            (br_if $lastGroups (i32.lt_u (local.get $o) (local.get $tileOut))))))
      (local.set $base (i32.add (local.get $base) (local.get $tileBytes)))
      (local.set $out (local.get $tileOut))
      (br_if $tiles (i32.lt_u (local.get $out) (local.get $outEnd)))))

  ;; Writes, in ascending order, the index of every one of the `count` int32
  ;; scores at `scores` that is >= `threshold` to `dst` (int32 each; room for
  ;; `count`), and returns how many there were. Top-k selection then only
  ;; ranks these candidates: the JS side picks the threshold from a sample of
  ;; the scores, and lowers it when too few pass. Four scores are compared at
  ;; once and a group none of which pass is skipped.
  (func (export "collect")
    (param $scores i32) (param $count i32) (param $threshold i32) (param $dst i32) (result i32)
    (local $index i32)
    (local $found i32)
    (local $groupsEnd i32)
    (local $bar v128)
    (local.set $bar (i32x4.splat (local.get $threshold)))
    (local.set $groupsEnd (i32.and (local.get $count) (i32.const -4)))
    (block $groupsDone
      (loop $groups
        (br_if $groupsDone (i32.ge_u (local.get $index) (local.get $groupsEnd)))
        (if (v128.any_true
              (i32x4.ge_s
                (v128.load (i32.add (local.get $scores) (i32.shl (local.get $index) (i32.const 2))))
                (local.get $bar)))
          (then
            (local.set $found (call $collectOne (local.get $scores) (local.get $index) (local.get $threshold) (local.get $dst) (local.get $found)))
            (local.set $found (call $collectOne (local.get $scores) (i32.add (local.get $index) (i32.const 1)) (local.get $threshold) (local.get $dst) (local.get $found)))
            (local.set $found (call $collectOne (local.get $scores) (i32.add (local.get $index) (i32.const 2)) (local.get $threshold) (local.get $dst) (local.get $found)))
            (local.set $found (call $collectOne (local.get $scores) (i32.add (local.get $index) (i32.const 3)) (local.get $threshold) (local.get $dst) (local.get $found)))))
        (local.set $index (i32.add (local.get $index) (i32.const 4)))
        (br $groups)))
    (block $restDone
      (loop $rest
        (br_if $restDone (i32.ge_u (local.get $index) (local.get $count)))
        (local.set $found (call $collectOne (local.get $scores) (local.get $index) (local.get $threshold) (local.get $dst) (local.get $found)))
        (local.set $index (i32.add (local.get $index) (i32.const 1)))
        (br $rest)))
    (local.get $found))

  ;; Appends `index` to `dst` when its score passes; returns the new count.
  (func $collectOne (param $scores i32) (param $index i32) (param $threshold i32) (param $dst i32) (param $found i32) (result i32)
    (if (result i32)
      (i32.ge_s (i32.load (i32.add (local.get $scores) (i32.shl (local.get $index) (i32.const 2)))) (local.get $threshold))
      (then
        (i32.store (i32.add (local.get $dst) (i32.shl (local.get $found) (i32.const 2))) (local.get $index))
        (i32.add (local.get $found) (i32.const 1)))
      (else (local.get $found))))
)
