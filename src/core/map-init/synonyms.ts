/**
 * What a header says, before the values are read: the waterfall's first three steps. An exact API name
 * (`firstName`, `address.city`), an alias in the languages exports come in (en, de, fr, es, pt, nl), a close
 * spelling of one of those (a typo, one or two letters off). Each answer says which step found it: the values may
 * overrule an alias or a fuzzy match, and the notes say how sure map init is.
 */
import { editDistance, resolveFieldTarget, targetPath } from '../mapping/targets.js';

/** A role a header can name beyond a field: kinds of phone and e-mail, names that are not first names, secrets. */
export type Role =
  | 'phone.mobile'
  | 'phone.home'
  | 'phone.work'
  | 'phone.generic'
  | 'email.primary'
  | 'email.alternative'
  | 'email.secondary'
  | 'name.full'
  | 'name.company'
  | 'secret';

export interface HeaderGuess {
  /** A field path ("email", "address.city") or a role. */
  target: string;
  step: 'exact' | 'alias' | 'fuzzy';
}

/** Alias (normalised: lower case, letters and digits only) → field or role. */
const ALIASES: Record<string, string> = {};
function alias(target: string, names: string): void {
  for (const name of names.split('|')) ALIASES[squash(name)] = target;
}

alias(
  'memberId',
  'member id|membership number|member number|member no|customer id|customer number|customer no|user id|contact id|record id|client id|account id|external id|id|uuid|guid',
);
alias(
  'memberId',
  'mitgliedsnummer|mitglieds nr|mitgliedsnr|kundennummer|kunden nr|numero adherent|numéro adhérent|numero de membre|id client|numero socio|número socio|numero de socio|id cliente|numero de cliente|número de cliente|lidnummer|klantnummer|relatienummer|numero do socio|número do sócio',
);
alias(
  'email.primary',
  'email|e mail|email address|e mail address|mail|primary email|emailadresse|e mail adresse|courriel|adresse e mail|adresse email|correo|correo electronico|correo electrónico|endereco de email|endereço de e mail|e mailadres',
);
alias(
  'email.alternative',
  'work email|email work|home email|email home|other email|email other|personal email|private email|business email|email 1|email 2|email 3',
);
alias('email.secondary', 'secondary email|alternate email|alternative email|email 2|second email');
alias(
  'firstName',
  'first name|firstname|given name|forename|first|vorname|prenom|prénom|nombre|nome|primeiro nome|voornaam|contact first name',
);
alias(
  'lastName',
  'last name|lastname|surname|family name|last|nachname|familienname|nom|nom de famille|apellido|apellidos|sobrenome|apelido|achternaam|contact last name',
);
alias(
  'name.full',
  'name|full name|complete name|fullname|customer name|contact name|display name|client name|member name|vollständiger name|nom complet|nombre completo|nome completo|volledige naam|naam',
);
alias(
  'name.company',
  'company|company name|organization|organisation|organization name|account name|business name|firma|firmenname|unternehmen|entreprise|société|societe|empresa|bedrijf|bedrijfsnaam|related company',
);
alias(
  'phone.mobile',
  'mobile|mobile phone|mobile phone number|mobile number|cell|cell phone|cellphone|handy|handynummer|mobil|mobiltelefon|portable|téléphone portable|telephone portable|movil|móvil|celular|telemovel|telemóvel|mobiel|gsm|phone mobile',
);
alias(
  'phone.home',
  'home phone|phone home|home telephone|landline|telefon privat|privat telefon|festnetz|téléphone fixe|telephone fixe|telefono fijo|teléfono fijo|telefone fixo|vaste telefoon|huistelefoon',
);
alias(
  'phone.work',
  'work phone|phone work|business phone|office phone|telefon geschäftlich|téléphone professionnel|telefono trabajo|telefone comercial|werktelefoon',
);
alias(
  'phone.generic',
  'phone|phone number|telephone|telephone number|tel|telefon|telefonnummer|téléphone|telefono|teléfono|telefone|telefoon|telefoonnummer|phone 1|phone 2|phone 3',
);
alias(
  'birthdate',
  'birthdate|birth date|date of birth|dob|birthday|born|geburtsdatum|geburtstag|date de naissance|fecha de nacimiento|fecha nacimiento|data de nascimento|data nascimento|geboortedatum',
);
alias(
  'createdAt',
  'created|created at|create date|created date|created time|created on|creation date|date created|date added|signup date|sign up date|signed up|registered|registered at|registered on|registration|date registered|date add|date joined|registered on|registration|registration date|date registered|date add|date joined|join date|joined|joined at|member since|subscription date|subscribed at|first seen|customer since|since|eintrittsdatum|eintritt|mitglied seit|registriert am|anmeldedatum|erstellt am|date d inscription|date d adhesion|date d adhésion|date de création|inscrit le|fecha de alta|fecha de registro|fecha de creación|fecha alta|data de cadastro|data de registo|data de criação|data de adesão|lid sinds|inschrijfdatum|aanmaakdatum',
);
alias(
  'isActive',
  'active|is active|enabled|status|member status|account status|membership status|aktiv|mitgliedsstatus|actif|statut|activo|estado|ativo|situação|actief',
);
alias(
  'address.addressLine1',
  'street|street address|address|address 1|address line 1|addressline1|street 1|strasse|straße|adresse|rue|calle|direccion|dirección|rua|morada|endereco|endereço|straat|adres',
);
alias(
  'address.addressLine2',
  'address 2|address line 2|street 2|street2|apt|suite|apartment|adresszusatz|complément d adresse|complement|piso|complemento|toevoeging',
);
alias(
  'address.zipCode',
  'zip|zip code|zipcode|postcode|post code|postal code|postal zip code|zip postal code|postleitzahl|plz|code postal|cp|codigo postal|código postal|cep|postcode nl',
);
alias(
  'address.city',
  'city|town|locality|ort|stadt|wohnort|ville|ciudad|localidad|cidade|localidade|plaats|woonplaats',
);
alias(
  'address.region',
  'state|region|province|county|province code|state code|region code|state region|province state|state province|bundesland|région|departement|provincia|estado provincia|distrito|provincie',
);
alias(
  'address.countryCode',
  'country|cc|iso country|country code|country region|nation|land|staat|pays|país|pais|land code',
);
alias('genderId', 'gender|sex|gender id|geschlecht|sexe|genre|sexo|género|genero|geslacht');
alias(
  'nationality',
  'nationality|citizenship|staatsangehörigkeit|nationalité|nacionalidad|nacionalidade|nationaliteit',
);
alias(
  'isMembershipFeePaid',
  'membership fee paid|fee paid|dues paid|beitrag bezahlt|beitrag gezahlt|cotisation payée|cuota pagada|quota paga|contributie betaald',
);
alias('isEmployee', 'employee|is employee|staff|mitarbeiter|employé|empleado|funcionário|medewerker');
alias('deceased', 'deceased|verstorben|décédé|fallecido|falecido|overleden');
alias('loyaltyProgram', 'loyalty program|loyalty programme|loyalty tier|tier');
alias('selectedStoreId', 'selected store id|preferred store|preferred store id|home store');
alias(
  'secret',
  'password|password hash|passwd|pwd|rp token|token|api key|secret|passwort|mot de passe|contraseña|senha|wachtwoord',
);

/** Lower case, accents kept, nothing but letters and digits: "E-mail Address" → "emailaddress". */
export function squash(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}]/gu, '');
}

/**
 * The header without what says nothing about the field: a required-field star, a parenthesised hint
 * ("Active (0/1)", "Birthday (yyyy-mm-dd)"), a "Mailing"/"Billing"/"Home" prefix, a path's array index, the
 * record's name before " - " ("Person - Email - Work": "Email - Work"; "E-mail 1 - Value": "E-mail 1").
 */
export function headerWords(header: string): string[] {
  const dotted = header.split('.').filter((part) => !/^\d+$/.test(part));
  const dashed = header.split(/\s+-\s+/);
  const named = (parts: string[]) =>
    parts.length > 1 && GENERIC.test(parts.at(-1)!.trim()) ? parts.at(-2)! : parts.at(-1)!;
  const tails = dashed.length > 1 ? [dashed.slice(-2).join(' - '), named(dashed)] : [];
  // "contact.emails.0": a list of e-mail addresses names one address
  const clean = (name: string) =>
    name
      .replace(/\([^)]*\)/g, ' ')
      .replace(/\*/g, ' ')
      .replace(/(e-?mail|phone)s$/i, '$1')
      .trim();
  const unprefixed = (name: string) =>
    name.replace(
      /^(mailing|billing|shipping|postal|primary|main|contact|home|default address|primary address)[\s_-]+/i,
      '',
    );
  return [
    ...new Set([header, named(dotted), ...tails].flatMap((name) => [name, clean(name), unprefixed(clean(name))])),
  ];
}

const GENERIC = /^(value|text|number|data|label|type)$/i;

/** The waterfall's header steps: exact API name, then alias, then a close spelling of an alias (long names only). */
export function guessFromHeader(header: string): HeaderGuess | undefined {
  const exact = resolveFieldTarget(header);
  const words = headerWords(header);
  if (exact && exact.kind !== 'metadata' && exact.kind !== 'customProperties') {
    // "Phone", "email": the API's own name, and a kind among look-alikes (the phone beside a mobile is the landline)
    const role = ALIASES[squash(header)];
    return { target: role?.includes('.') && !role.startsWith('address.') ? role : targetPath(exact), step: 'exact' };
  }
  for (const word of words) {
    const found = ALIASES[squash(word)];
    if (found) return { target: found, step: 'alias' };
  }
  if (looksLikeIdHeader(words)) return { target: 'memberId', step: 'alias' };
  const phone = phoneKindOf(words);
  if (phone) return { target: phone, step: 'alias' };
  for (const word of words) {
    const own = resolveFieldTarget(word);
    if (own && own.kind !== 'metadata' && own.kind !== 'customProperties')
      return { target: targetPath(own), step: 'alias' };
  }
  for (const word of words) {
    const name = squash(word);
    // one letter off, in a name long enough that one letter is a typo and not another word ("Adress", "Emial")
    if (name.length < 6) continue;
    for (const [known, target] of Object.entries(ALIASES))
      if (known.length >= 6 && editDistance(name, known, 1) <= 1) return { target, step: 'fuzzy' };
  }
  return undefined;
}

/** Who an id in a header belongs to when it is the member's ("Record ID - Contact", "id_customer", "Kunden-Nr"). */
const OWNERS =
  /^(record|customer|contact|member|user|client|account|person|subscriber|kunden|kunde|mitglied|mitglieds|cliente|socio|sócio|miembro|membre|adherent|adhérent|associado|klant|lid|relatie)$/;

/** An id token ("id", "nr", "no", "number", "nummer") beside an owner token, in any order. */
function looksLikeIdHeader(words: readonly string[]): boolean {
  return words.some((word) => {
    const tokens = word
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean);
    // "N° adhérent" splits into "n" and "adhérent"; "Nº socio" keeps "nº" (º is a letter)
    const id = tokens.some((t) => /^(id|nr|no|n|nº|number|nummer|numero|número|num|núm)$/.test(t));
    return id && tokens.some((t) => OWNERS.test(t));
  });
}

const PHONE_WORD =
  /^(phone|telephone|tel|telefon|téléphone|telefono|teléfono|telefone|telefoon|nummer|number|numéro|número|numero)$/;
const MOBILE_WORD = /^(mobile|mobil|cell|cellphone|handy|móvil|movil|portable|celular|telemóvel|telemovel|mobiel|gsm)$/;
const HOME_WORD = /^(home|privat|private|fixe|fijo|fixo|festnetz|vast|domicile|casa|thuis)$/;

/** A kind of phone named in any order and language: "Teléfono móvil", "numéro de portable", "Telefon (privat)". */
function phoneKindOf(words: readonly string[]): string | undefined {
  for (const word of words) {
    const tokens = word
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean);
    if (tokens.some((t) => MOBILE_WORD.test(t))) return 'phone.mobile';
    if (tokens.some((t) => PHONE_WORD.test(t)) && tokens.some((t) => HOME_WORD.test(t))) return 'phone.home';
  }
  return undefined;
}
