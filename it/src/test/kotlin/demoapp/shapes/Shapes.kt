package demoapp.shapes

// Kotlin shapes as kotlinc names them on the JVM (agent/CONFIG.md, "Kotlin classes").
@JvmInline value class CustomerId(val v: String)

object Tools {
    fun byId(sessionId: String, id: CustomerId): String = "customer ${id.v}"          // byId-<hash>(String, String)
    internal fun lookup(sessionId: String, q: String): String = "found $q"            // lookup$main(String, String)
    @JvmOverloads fun refund(sessionId: String, amount: Long, reason: String = "none"): String = "refunded $amount ($reason)"
}

class Privacy {
    companion object {
        @JvmStatic fun forget(subject: String) { println("app: forgot $subject") }
    }
}

fun String.shout(sessionId: String): String = uppercase()                          // ShapesKt.shout(String $this$shout, String)

fun main() {
    println("app: " + Tools.byId("s1", CustomerId("c-7")))
    println("app: " + Tools.lookup("s1", "ada"))
    println("app: " + Tools.refund("s1", 5))
    Privacy.forget("bob@example.com")
    println("app: " + "hello".shout("s1"))
}
