package dev.tracegate.matchers.pii;

import java.util.Locale;

/** A kind of personal data that the extractor detects and GDPR contracts reason about. */
public enum DataCategory {
    EMAIL("email"),
    PHONE("phone"),
    IBAN("iban"),
    PAYMENT_CARD("payment_card"),
    NATIONAL_ID("national_id"),
    DATE_OF_BIRTH("date_of_birth"),
    POSTAL_ADDRESS("postal_address"),
    IP_ADDRESS("ip_address"),
    HEALTH("health"),
    FINANCIAL("financial");

    private static final DataCategory[] VALUES = values();

    private final String key;

    DataCategory(String key) { this.key = key; }

    /** The name used in libraries, traces and atoms ({@code payment_card}). */
    public String key() { return key; }

    /** Bit of this category in a mask. */
    public long bit() { return 1L << ordinal(); }

    /**
     * The category of a name, case-insensitively, also accepting the short forms {@code card},
     * {@code dob}, {@code address}, {@code ip}, {@code ssn}; null when the name is not built in.
     */
    public static DataCategory parse(String name) {
        if (name == null) return null;
        String n = name.trim().toLowerCase(Locale.ROOT).replace('-', '_');
        for (DataCategory c : VALUES) if (c.key.equals(n)) return c;
        return switch (n) {
            case "card", "credit_card", "creditcard" -> PAYMENT_CARD;
            case "dob", "birth_date", "birthdate" -> DATE_OF_BIRTH;
            case "address", "postal", "postal_address" -> POSTAL_ADDRESS;
            case "ip", "ip_addr" -> IP_ADDRESS;
            case "ssn", "national_identifier", "nationalid" -> NATIONAL_ID;
            case "telephone", "phone_number" -> PHONE;
            case "e_mail", "mail" -> EMAIL;
            case "medical" -> HEALTH;
            case "finance" -> FINANCIAL;
            default -> null;
        };
    }

    /** The category at {@code ordinal}. */
    public static DataCategory of(int ordinal) { return VALUES[ordinal]; }
}
