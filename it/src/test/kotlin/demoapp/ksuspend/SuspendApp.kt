package demoapp.ksuspend

import kotlinx.coroutines.*
import kotlinx.coroutines.flow.*
import kotlin.coroutines.resume

// A Kotlin agent loop whose tools, consent and erasure methods are `suspend fun`s (compiled as
// name(params..., Continuation): Object). It imports nothing of tracegate; the test configures the methods.

object Tools {
    // suspends twice (a timer, then another thread) before it answers: a state machine, re-entered at each resume
    suspend fun fetchProfile(sessionId: String, customer: String): String {
        delay(5)
        return withContext(Dispatchers.IO) { "profile of $customer" }
    }

    // answers at once, without suspending
    suspend fun lookup(sessionId: String, customer: String): String = "customer $customer: gold"

    // a tail call into a callback API that answers on a thread of its own: no state machine here, the value goes
    // straight to the caller's continuation (which must still resume on the caller's dispatcher)
    suspend fun remote(sessionId: String, query: String): String = suspendCancellableCoroutine { c ->
        Thread({ Thread.sleep(5); c.resume("answer to $query") }, "remote-io").start()
    }

    suspend fun profileById(sessionId: String, id: String): String {
        delay(5)   // e.g. a database call
        return "profile $id: email bob@example.com, tier gold"
    }

    val slowStarted = CompletableDeferred<Unit>()

    // a slow backend: the caller cancels it while it is suspended
    suspend fun slow(sessionId: String, query: String): String {
        slowStarted.complete(Unit)
        delay(60_000)
        return "late answer to $query"
    }

    fun newsletter(sessionId: String, email: String): String = "sent to $email"
}

object ToolRegistry {
    // the loop's single entry point; each branch is a tail call (Kotlin makes no state machine here)
    suspend fun dispatch(name: String, args: Map<String, Any?>, sessionId: String): Any? = when (name) {
        "profileById" -> Tools.profileById(sessionId, args["id"] as String)
        else -> "unknown tool $name"
    }
}

object Privacy {
    suspend fun erase(sessionId: String, subject: String) {
        delay(2)
        println("app: erased $subject")
    }

    suspend fun grantOk(sessionId: String, subject: String, purpose: String) {
        delay(2)
        println("app: consent stored for $subject")
    }

    suspend fun grantFails(sessionId: String, subject: String, purpose: String) {
        delay(2)
        throw IllegalStateException("form not signed")
    }

    // the consent store is down: fails after suspending
    suspend fun eraseFails(sessionId: String, subject: String) {
        delay(2)
        throw IllegalStateException("store down")
    }

    suspend fun withdrawFails(sessionId: String, subject: String, purpose: String) {
        delay(2)
        throw IllegalStateException("store down")
    }

    val slowStarted = CompletableDeferred<Unit>()

    // a slow store: the caller cancels the call while it is suspended
    suspend fun eraseSlow(sessionId: String, subject: String) {
        slowStarted.complete(Unit)
        delay(60_000)
    }

    suspend fun grantSlow(sessionId: String, subject: String, purpose: String) {
        slowStarted.complete(Unit)
        delay(60_000)
    }
}

// what a Kotlin agent loop may hand its tools as instead of named suspend funs
object Streams {
    // a cold flow: the call returns at once, the elements come when it is collected
    fun results(sessionId: String, query: String): Flow<String> = flow {
        delay(1)
        emit("first result for $query")
        emit("second result for $query")
    }

    // a suspend lambda: kotlinc compiles it to the class Streams$lookupLambda$1 (a SuspendLambda)
    val lookupLambda: suspend (String, String) -> String = { sessionId, customer ->
        delay(1)
        "customer $customer: gold"
    }
}

// cancels what `call` starts once it has suspended (started completes), and shows what the caller gets
fun cancelled(what: String, started: CompletableDeferred<Unit>, call: suspend () -> Unit) = runBlocking {
    val job = async { call() }
    started.await()
    job.cancel()
    show(what, runCatching { job.await() })
}

fun show(what: String, r: Result<Any?>) =
    println("app: $what -> " + r.fold({ "value=$it" }, { "threw ${it.javaClass.simpleName}: ${it.message}" }))

fun main(args: Array<String>) {
    when (args[0]) {
        // one conversation on the main thread's own event loop (runBlocking without a dispatcher): no thread hop
        "one" -> {
            val r = runCatching { runBlocking { Tools.fetchProfile("s1", "ada").also { println("app: resumed on " + Thread.currentThread().name) } } }
            show("fetchProfile(s1, ada)", r)
        }
        // five conversations at once on Dispatchers.Default, one call each
        "many" -> {
            val results = runBlocking(Dispatchers.Default) {
                (1..5).map { i -> async { runCatching { Tools.fetchProfile("c$i", "user$i") } } }.awaitAll()
            }
            results.forEachIndexed { i, r -> show("fetchProfile(c${i + 1}, user${i + 1})", r) }
        }
        "lookup" -> show("lookup(s1, ada)", runCatching { runBlocking(Dispatchers.Default) { Tools.lookup("s1", "ada") } })
        // the caller runs on a single-thread dispatcher of its own: after the tool's answer it must be back there
        "remote" -> {
            val loop = newSingleThreadContext("agent-loop")
            val r = runCatching {
                runBlocking(loop) {
                    val a = Tools.remote("s1", "weather")
                    println("app: resumed on " + Thread.currentThread().name)
                    a
                }
            }
            show("remote(s1, weather)", r)
            loop.close()
        }
        "dispatch" -> {
            runBlocking { Privacy.erase("s1", "bob@example.com") }
            show("dispatch(profileById, C2)", runCatching { runBlocking { ToolRegistry.dispatch("profileById", mapOf("id" to "C2"), "s1") } })
        }
        // the call is cancelled once it has suspended (the caller's event loop runs again only then)
        "cancel" -> runBlocking {
            val call = async { Tools.slow("s1", "q") }
            Tools.slowStarted.await()
            call.cancel()
            show("slow(s1, q)", runCatching { call.await() })
        }
        "twice" -> for (c in listOf("ada", "bob")) {
            show("lookup(s1, $c)", runCatching { runBlocking(Dispatchers.Default) { Tools.lookup("s1", c) } })
        }
        "erase-fails" -> {
            show("eraseFails", runCatching { runBlocking { Privacy.eraseFails("s1", "bob@example.com") } })
            show("profileById(s1, C2)", runCatching { runBlocking { Tools.profileById("s1", "C2") } })
        }
        "erase-cancel" -> {
            cancelled("eraseSlow", Privacy.slowStarted) { Privacy.eraseSlow("s1", "bob@example.com") }
            show("profileById(s1, C2)", runCatching { runBlocking { Tools.profileById("s1", "C2") } })
        }
        "grant-cancel" -> {
            cancelled("grantSlow", Privacy.slowStarted) { Privacy.grantSlow("s1", "ada@example.com", "marketing") }
            println("app: " + Tools.newsletter("s1", "ada@example.com"))
        }
        "withdraw-fails" -> {
            show("grantOk", runCatching { runBlocking { Privacy.grantOk("s1", "ada@example.com", "marketing") } })
            show("withdrawFails", runCatching { runBlocking { Privacy.withdrawFails("s1", "ada@example.com", "marketing") } })
            println("app: " + Tools.newsletter("s1", "ada@example.com"))
        }
        "flow" -> show("results(s1, weather)", runCatching { runBlocking { Streams.results("s1", "weather").toList() } })
        "lambda" -> show("lookupLambda(s1, ada)", runCatching { runBlocking { Streams.lookupLambda("s1", "ada") } })
        "consent" -> {
            val r = runCatching { runBlocking { if (args[1] == "ok") Privacy.grantOk("s1", "ada@example.com", "marketing") else Privacy.grantFails("s1", "ada@example.com", "marketing") } }
            show("grant", r)
            println("app: " + Tools.newsletter("s1", "ada@example.com"))
        }
    }
}
