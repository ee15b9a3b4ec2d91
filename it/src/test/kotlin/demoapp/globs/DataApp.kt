package demoapp.globs

import demoapp.globs.tools.*

// The agent loop (outside the tools' package) reads a data class's properties, destructures it and copies it, then
// calls the tools (trial33 08); it reads and sets a plain Kotlin class's properties the same way.
fun main() {
    val req = RefundReq("ada", 500)
    println("app: loop reads ${req.customer} ${req.amount}")
    val (who, amount) = req
    val bigger = req.copy(amount = amount * 2)
    println("app: " + RefundTools.refund("s1", req.customer, req.amount))
    println("app: " + RefundTools.refund("s1", bigger.customer, bigger.amount) + " for $who")
    val ledger = Ledger("bea")
    ledger.limit = 900
    println("app: ledger of ${ledger.owner} open ${ledger.isOpen} in ${Ledger.currency} up to ${ledger.limit}")
    println("app: " + ledger.book("s1", 100))
}
