#!/usr/bin/env python3
"""Generates labelled.tsv: one labelled value per line, "category<TAB>text".

Labels come from how each value is built (a valid IBAN is made by computing its check digits, a
card number by computing its Luhn digit, a hard negative by breaking them), never from running the
detector. Deterministic (fixed seed). Run from this folder: python3 make_fixtures.py > labelled.tsv
"""
import random

rnd = random.Random(20261129)
rows = []

def add(cat, text):
    assert '\t' not in text and '\n' not in text
    rows.append((cat, text))

def luhn_digit(body):
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9: d -= 9
        total += d
    return str((10 - total % 10) % 10)

def card(prefix, length):
    body = prefix + ''.join(rnd.choice('0123456789') for _ in range(length - len(prefix) - 1))
    return body + luhn_digit(body)

def bad_luhn(number):
    last = int(number[-1])
    return number[:-1] + str((last + rnd.randint(1, 9)) % 10)

def group4(s, sep=' '):
    return sep.join(s[i:i + 4] for i in range(0, len(s), 4))

def iban(cc, bban):
    rearranged = bban + cc + '00'
    num = ''.join(str(int(ch, 36)) for ch in rearranged)
    check = 98 - int(num) % 97
    return cc + '%02d' % check + bban

def digits(n):
    return ''.join(rnd.choice('0123456789') for _ in range(n))

# ---------------------------------------------------------------- email
for t in ["alice.smith@example.com", "bob+invoices@mail.example.org", "j.doe@uni-heidelberg.de",
          "Contact me at carol_89@example.co.uk please", "send it to DAVE@EXAMPLE.NET", "support-team@acme.io",
          "my address is ana.lopez@correo.example.es.", "x@y.io", "first.last@sub.domain.example",
          "Reply-To: eve.o'neil@example.com", "mailto:frank@example.org", "email: gina.r@example.travel",
          "<henry@example.com>", "CC ivan.petrov@example.ru and the team", "karl99@example.info",
          "lena_m@example.museum", "(mike@example.com)", "nina@example.com, oscar@example.com",
          "Patient portal login: paula.k@example.net", "quinn.o@example.ch wrote:"]:
    add('email', t)
# ---------------------------------------------------------------- phone
for t in ["+1 415 555 2671", "+44 20 7946 0958", "+49 30 901820", "+33 1 42 68 53 00", "(212) 555-0142",
          "call me on 415-555-0199", "phone: +1 (646) 555-0123", "+61 2 9374 4000", "tel. 020 7946 0321",
          "+91 98765 43210", "Mobile +44 7911 123456", "+34 912 345 678", "+39 06 6982", "+31 20 555 1234",
          "+1-303-555-0187", "reach me at +353 1 234 5678", "fax +49 89 1234567", "+81 3-1234-5678",
          "+27 21 123 4567", "+1 (415) 555-0100 ext. 12"]:
    add('phone', t)
# ---------------------------------------------------------------- iban
ib = [iban('DE', '37040044' + '0532013000'), iban('GB', 'NWBK' + '60161331926819'), iban('FR', '20041010050500013M02606'),
      iban('NL', 'ABNA' + '0417164300'), iban('ES', '21000418450200051332'), iban('IT', 'X0542811101000000123456'),
      iban('CH', '0076201162385295' + '7'), iban('BE', '539007547034'), iban('AT', '1904300234573201'),
      iban('PL', '10901014' + '0000071219812874')]
for i in range(10):
    bank = digits(8)
    acct = digits(10)
    ib.append(iban('DE', bank + acct))
for i, v in enumerate(ib):
    if i % 3 == 0: add('iban', v)
    elif i % 3 == 1: add('iban', group4(v))
    else: add('iban', 'Please transfer to IBAN ' + group4(v) + ' by Friday')
# ---------------------------------------------------------------- payment cards
cards = [card('4', 16), card('4', 16), card('4', 13), card('51', 16), card('55', 16), card('2221', 16),
         card('2720', 16), card('34', 15), card('37', 15), card('6011', 16), card('65', 16), card('3530', 16),
         card('36', 14), card('62', 16), card('4', 19), card('52', 16), card('4', 16), card('37', 15),
         card('6011', 16), card('54', 16)]
for i, c in enumerate(cards):
    if i % 4 == 0: add('payment_card', c)
    elif i % 4 == 1: add('payment_card', ' '.join(c[k:k + 4] for k in range(0, len(c), 4)))
    elif i % 4 == 2: add('payment_card', '-'.join(c[k:k + 4] for k in range(0, len(c), 4)))
    else: add('payment_card', 'card number ' + c + ' exp 09/28')
# ---------------------------------------------------------------- national ids
def ssn():
    while True:
        a = rnd.randint(1, 899)
        if a != 666: break
    return '%03d-%02d-%04d' % (a, rnd.randint(1, 99), rnd.randint(1, 9999))
def nino():
    first = 'ABCEGHJKLMNOPRSTWXYZ'
    second = 'ABCEGHJKLMNPRSTWXYZ'
    while True:
        p = rnd.choice(first) + rnd.choice(second)
        if p not in ('BG', 'GB', 'NK', 'KN', 'TN', 'NT', 'ZZ'): break
    return p + digits(6) + rnd.choice('ABCD')
def dni():
    n = rnd.randint(10000000, 99999999)
    return '%08d%s' % (n, 'TRWAGMYFPDXBNJZSQVHLCKE'[n % 23])
def nie():
    p = rnd.choice('XYZ')
    n = rnd.randint(0, 9999999)
    v = 'XYZ'.index(p) * 10000000 + n
    return '%s%07d%s' % (p, n, 'TRWAGMYFPDXBNJZSQVHLCKE'[v % 23])
def sin():
    while True:
        body = str(rnd.randint(1, 7)) + digits(7)
        s = body + luhn_digit(body)
        return s[0:3] + ' ' + s[3:6] + ' ' + s[6:9]
for i in range(8): add('national_id', ssn() if i % 2 else 'SSN ' + ssn())
add('national_id', 'ssn: ' + ssn().replace('-', ''))
add('national_id', 'social security number ' + ssn().replace('-', ' '))
for i in range(7):
    n = nino()
    add('national_id', n if i % 2 else n[0:2] + ' ' + n[2:4] + ' ' + n[4:6] + ' ' + n[6:8] + ' ' + n[8])
for i in range(6): add('national_id', dni() if i % 2 else 'DNI ' + dni())
for i in range(3): add('national_id', nie())
for i in range(4): add('national_id', 'SIN ' + sin())
# ---------------------------------------------------------------- dates of birth
for t in ["born 1985-03-12", "Date of birth: 12/03/1985", "DOB 03/27/1979", "date of birth 04.07.1992",
          "She was born on 12 March 1985", "birthday: March 12, 1985", "d.o.b. 1990-11-30",
          "geboren am 17.05.1968", "Born: 2001-02-03", "birth date 1956/08/21", "DOB: 7 Jan 2004",
          "patient born 30/09/1947", "born in 1977-06-15 in Lyon", "Birthdate 1999-12-31",
          "his date of birth is 5 November 1960", "DOB=1988-08-08", "birthday 24.12.1975",
          "born 3 May 1982", "Date of Birth 10/10/2010", "dob 1995-01-20"]:
    add('date_of_birth', t)
# ---------------------------------------------------------------- postal addresses
for t in ["221B Baker Street", "1600 Pennsylvania Avenue NW", "Ship to 10 Downing Street, London",
          "742 Evergreen Terrace", "350 Fifth Avenue, New York", "Hauptstraße 5", "Lindenallee 23",
          "Kerkstraat 12", "12 rue de la Paix", "Via Roma 12", "Calle Mayor 5", "SW1A 1AA",
          "London EC1A 1BB", "San Francisco, CA 94103", "Austin, TX 78701-1234", "PO Box 4521",
          "P.O. Box 77", "deliver to 4 Privet Drive", "1 Infinite Loop Way", "88 Colin P Kelly Jr Street",
          "Bahnhofstrasse 1, Zürich", "Am Schlossplatz 3", "5 Rue du Faubourg", "Piazza Navona 7"]:
    add('postal_address', t)
# ---------------------------------------------------------------- ip addresses
for t in ["192.168.1.10", "10.0.0.1", "client 203.0.113.45 connected", "8.8.8.8", "from 172.16.254.3",
          "255.255.255.0", "2001:db8::1", "fe80::1ff:fe23:4567:890a", "2001:0db8:85a3:0000:0000:8a2e:0370:7334",
          "::1", "ip=198.51.100.7", "[2001:db8:0:1::57]", "remote 100.64.0.12:443", "1.1.1.1",
          "host 2606:4700:4700::1111", "login from 81.2.69.160"]:
    add('ip_address', t)
# ---------------------------------------------------------------- health
for t in ["diagnosed with type 2 diabetes", "She is pregnant", "prescription for insulin", "history of asthma",
          "undergoing chemotherapy", "allergic to penicillin", "blood pressure 140/90", "HIV positive",
          "takes antidepressants", "medical history: hypertension", "scheduled for knee surgery",
          "Diagnosis: migraine", "clinical depression since 2019", "epilepsy medication", "mental health leave",
          "cholesterol is high", "has bipolar disorder", "cancer screening results", "blood type O negative",
          "recovering from a heart attack"]:
    add('health', t)
# ---------------------------------------------------------------- financial
for t in ["annual salary of 85k", "credit score 712", "bank account closed", "mortgage arrears",
          "outstanding debt of 12,000", "account balance is negative", "tax return 2023", "filed for bankruptcy",
          "net worth estimate", "routing number needed", "sort code please", "overdraft fee", "monthly income",
          "credit limit raised", "attach your payslip", "loan application", "pension contributions",
          "bank statement for March", "credit history check", "his wages were cut"]:
    add('financial', t)
# ---------------------------------------------------------------- hard negatives
negs = []
for i in range(12):
    negs.append(bad_luhn(card(rnd.choice(['4', '51', '37', '6011']), 16)))   # card-like, Luhn fails
for i in range(6):
    v = ib[i]
    bad = v[:2] + '%02d' % ((int(v[2:4]) + 1) % 100) + v[4:]
    negs.append(group4(bad) if i % 2 else bad)                            # IBAN with wrong check digits
negs += ["ISBN 978-3-16-148410-0", "ISBN 0-306-40615-2", "9780306406157", "version 1.2.3.4", "v2.10.1.3",
         "release 4.0.12", "Spring Boot 3.4.1", "jackson 2.23.0", "2024-01-15T10:00:00Z", "2025-11-29 21:45:00",
         "Order #100234567", "order 2024011500042", "tracking 1Z999AA10123456784", "invoice INV-2024-000123",
         "SKU 4006381333931", "timestamp 1732901234567", "epoch 1700000000", "build 20240115.1", "PR #4521",
         "port 8080", "HTTP 404 not found", "3.14159265358979", "uuid 123e4567-e89b-12d3-a456-426614174000",
         "sha 9f86d081884c7d659a2feaa0c55ad015", "MAC 00:1A:2B:3C:4D:5E", "at 10:30:45", "score 12:34:56:78",
         "GB00 ABCD 1234", "DE00 0000 0000 0000 0000 00", "XX12 3456 7890", "000-12-3456", "666-45-6789",
         "123-00-4567", "server health check passed", "system diagnostics ok", "healthy build", "technical debt backlog",
         "balance the load across nodes", "load balancer", "the account settings page", "email template", "phone icon",
         "user@localhost", "a@b", "john at example dot com", "twitter @handle", "price $1,299.00", "5000 USD",
         "ratio 1:2", "2 + 2 = 4", "chapter 12.3", "temperature 21.5 C", "coordinates 48.8566, 2.3522",
         "the meeting is on 2024-03-12", "deadline 12/03/2025", "born to run (the song)", "Street Fighter 2",
         "Way 2 Go", "12 angry men", "room 101", "Route 66", "top 10 tips", "page 3 of 12", "10 items left",
         "the patient approach works", "we had a good discussion", "cancelled the order", "outcomes",
         "postage paid", "call stack overflow", "phone home", "1234567", "12345678", "99 bottles", "call 911",
         "3 May", "March 2024 release", "1985", "10.0", "255.255.255.256", "999.1.1.1", "1.2.3", "1.2.3.4.5",
         "fe80", "::", "ab:cd", "2001:db8", "AB123456", "QQ 12 34 56 E", "12345678A", "X1234567A",
         "046-454-287", "4111 1111 1111 1112", "0000 0000 0000 0000", "1111111111111111",
         "SW1A", "CA 94103", "Baker Street", "the street was empty", "Road to nowhere", "via email", "via 12 servers",
         "PO Box", "the drive failed", "v10.0.0.1", "call me maybe",
         "account", "transfer", "medical", "prescriptive analytics", "surgical precision",
         "hospitality", "sugar-free", "lend me a hand", "ssn field empty", "date 1985-03-12",
         "12 March 1985", "March 12, 1985", "1985/03/12", "file_2024-01-15.log", "IMG_20240115_101010.jpg",
         "+", "+-", "(000) 000-0000", "+1 000 000 0000", "00 00 00 00", "911-911-911"]
for n in negs:
    add('none', n)


# ---------------------------------------------------------------- batch 2, written after the detector existed,
# committed with whatever result it gave (see matchers/README.md)
for t in ["Write to maria.garcia@example.es for details", "ops@status.example.io", "noreply@example.com."]:
    add('email', t)
for t in ["+44 161 496 0000", "Tel: +49 40 1234 5678", "+1 202 555 0175", "call +33 6 12 34 56 78"]:
    add('phone', t)
for v in [iban('FR', '30006000011234567890189'), iban('NL', 'RABO0123456789'), iban('IE', 'AIBK93115212345678')]:
    add('iban', 'IBAN: ' + group4(v))
for c in [card('4', 16), card('51', 16), card('37', 15)]:
    add('payment_card', 'Paid with ' + ' '.join(c[k:k + 4] for k in range(0, len(c), 4)))
add('national_id', 'SSN: ' + ssn())
add('national_id', 'NI number ' + nino())
add('national_id', 'NIE ' + nie())
for t in ["DOB: 1971-07-04", "born on 29 February 1996", "Date of birth - 15.08.1963"]:
    add('date_of_birth', t)
for t in ["27 Old Gloucester Street, London", "Friedrichstraße 43", "Chicago, IL 60601", "PO Box 1200, Leeds"]:
    add('postal_address', t)
for t in ["connect to 192.0.2.33", "X-Forwarded-For: 198.51.100.23", "address 2001:db8:abcd:12::1"]:
    add('ip_address', t)
for t in ["was hospitalized last week", "has a peanut allergy", "therapist appointment on Monday", "takes medication for ADHD"]:
    add('health', t)
for t in ["his income dropped", "the mortgage rate", "salary slip attached", "asked about her credit score"]:
    add('financial', t)
for n in ["ticket 4242-4242", "call center hours 9-17", "meeting room 4.12", "catalogue no. 4000 1234 5678 9011",
          "patch 1.2.14", "see RFC 7231", "the 2019 report", "tel aviv office", "diagnostic tools", "financial year planning",
          "phone case", "address book sync", "pregnancy of the idea", "email campaign metrics", "IP rights"]:
    add('none', n)

print('# Labelled values for the data-category extractor: category<TAB>text (category "none": no personal data).')
print('# Generated by make_fixtures.py; labels come from construction, not from the detector.')
for cat, text in rows:
    print(cat + '\t' + text)
