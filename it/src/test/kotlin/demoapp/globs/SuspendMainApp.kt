package demoapp.globs.tools

import kotlinx.coroutines.delay

// A suspend entry point: kotlinc compiles it to a static main(Continuation) returning Object, and a synthetic
// main(String[]) that runs it. The loop refunds 500, then 1000, with a suspension between them.
suspend fun main() {
    println("app: " + RefundTools.refund("s2", "bea", 500))
    delay(1)
    println("app: " + RefundTools.refund("s2", "bea", 1000))
}
