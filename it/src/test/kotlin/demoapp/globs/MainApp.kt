package demoapp.globs.tools

// Kotlin's entry point in the tools' package: kotlinc compiles it to a static main() and a synthetic main(String[])
// that calls it (trial33 07). The loop refunds 500, then 1000.
fun main() {
    println("app: " + RefundTools.refund("s1", "ada", 500))
    println("app: " + RefundTools.refund("s1", "ada", 1000))
}
