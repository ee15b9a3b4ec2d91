package demoapp.proxied;

import demoapp.Console;

/** A bean of the application's: the class a configured-methods entry means. */
public class Tools {
    public String lookup(String session, String customer) {
        Console.line("METHOD lookup ran session=" + session + " customer=" + customer);
        return "account of " + customer;
    }
}
