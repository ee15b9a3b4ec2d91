package demoapp.globs.tools

// The tools of a Kotlin agent loop, configured by a package glob ({class: "demoapp.globs.tools.*", method: "*"}).
object RefundTools {
    fun refund(sessionId: String, customer: String, amount: Long): String = "refunded $amount to $customer"
}
