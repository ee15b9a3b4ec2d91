package demoapp.globs.tools

// The tools of a Kotlin agent loop, configured by a package glob ({class: "demoapp.globs.tools.*", method: "*"}).
object RefundTools {
    fun refund(sessionId: String, customer: String, amount: Long): String = "refunded $amount to $customer"
}

// A data class the loop passes around (trial33 08): its getters, componentN() and copy() are kotlinc's, not tools.
data class RefundReq(val customer: String, val amount: Long)

// A plain Kotlin class with properties (a val, a var, an `is` val, a companion's val) and one function that is a tool;
// `summary` has a getter of its own and no backing field: code the source writes.
class Ledger(val owner: String) {
    var limit: Long = 800
    val isOpen: Boolean = true
    val summary: String get() = "$owner up to $limit"
    fun book(sessionId: String, amount: Long): String = "booked $amount for $owner"

    companion object {
        val currency: String = "EUR"
    }
}
