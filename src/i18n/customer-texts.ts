// Texts of the customer page. The server renders them (in the first HTML and in every live
// snapshot), so the page's script carries no dictionary and stays tiny.
import type { Language } from './language.ts';

export type CustomerTexts = {
  title: string;
  yourNumber: string;
  heading: Record<'created' | 'ready' | 'acknowledged' | 'snoozed' | 'collected' | 'cancelled' | 'expired', string>;
  detail: Record<'created' | 'ready' | 'acknowledged' | 'snoozed' | 'collected' | 'cancelled' | 'expired', string>;
  next: string;
  aheadOne: string;
  ahead: string;
  wait: string;
  waitSoon: string;
  onMyWay: string;
  snooze: string;
  alertMe: string;
  alertOn: string;
  iosHint: string;
  refresh: string;
  offline: string;
  announcement: string;
  rung: string;
  notFoundTitle: string;
  notFoundBody: string;
  tooManyTitle: string;
  tooManyBody: string;
};

export const CUSTOMER_TEXTS: Record<Language, CustomerTexts> = {
  en: {
    title: 'Order {n}', yourNumber: 'Your number',
    heading: { created: 'We’re preparing your order', ready: 'Your order is ready!', acknowledged: 'See you at the counter', snoozed: 'No rush', collected: 'Picked up. Enjoy!', cancelled: 'This order was cancelled', expired: 'This ticket has expired' },
    detail: {
      created: 'Keep this page open: it rings when your order is ready.', ready: 'Please come to the counter.', acknowledged: 'Thanks, we’ll have it ready for you.',
      snoozed: 'We’ll ring you again at {time}.', collected: 'Thank you for your visit.', cancelled: 'Please ask at the counter.', expired: 'Please ask at the counter.',
    },
    next: 'You’re next', aheadOne: '1 order ahead of you', ahead: '{n} orders ahead of you', wait: 'Estimated wait: about {m} min', waitSoon: 'Estimated wait: any minute now',
    onMyWay: 'On my way', snooze: 'Need {m} more minutes', alertMe: 'Alert me', alertOn: 'Alerts on: keep this page open.',
    iosHint: 'On iPhone, notifications need this page on your Home Screen: tap Share, then “Add to Home Screen”, and open it from there. Or keep this page open.',
    refresh: 'Refresh', offline: 'Connection lost, reconnecting…', announcement: 'Message from the shop', rung: 'Order {n} is ready. Please come to the counter.',
    notFoundTitle: 'This link is not active', notFoundBody: 'The ticket may be old, or the link incomplete. Please ask at the counter.',
    tooManyTitle: 'Too many requests', tooManyBody: 'Please wait a moment, then refresh.',
  },
  fr: {
    title: 'Commande {n}', yourNumber: 'Votre numéro',
    heading: { created: 'Nous préparons votre commande', ready: 'Votre commande est prête !', acknowledged: 'À tout de suite au comptoir', snoozed: 'Prenez votre temps', collected: 'Récupérée. Bon appétit !', cancelled: 'Cette commande a été annulée', expired: 'Ce ticket a expiré' },
    detail: {
      created: 'Gardez cette page ouverte : elle sonnera quand votre commande sera prête.', ready: 'Merci de venir au comptoir.', acknowledged: 'Merci, nous la gardons pour vous.',
      snoozed: 'Nous vous rappellerons à {time}.', collected: 'Merci de votre visite.', cancelled: 'Merci de vous adresser au comptoir.', expired: 'Merci de vous adresser au comptoir.',
    },
    next: 'Vous êtes le prochain', aheadOne: '1 commande avant la vôtre', ahead: '{n} commandes avant la vôtre', wait: 'Attente estimée : environ {m} min', waitSoon: 'Attente estimée : d’un instant à l’autre',
    onMyWay: 'J’arrive', snooze: 'Encore {m} minutes', alertMe: 'M’alerter', alertOn: 'Alertes activées : gardez cette page ouverte.',
    iosHint: 'Sur iPhone, les notifications exigent cette page sur l’écran d’accueil : touchez Partager, puis « Sur l’écran d’accueil », et ouvrez-la depuis là. Ou gardez cette page ouverte.',
    refresh: 'Actualiser', offline: 'Connexion perdue, reconnexion…', announcement: 'Message de la boutique', rung: 'La commande {n} est prête. Merci de venir au comptoir.',
    notFoundTitle: 'Ce lien n’est pas actif', notFoundBody: 'Le ticket est peut-être ancien, ou le lien incomplet. Merci de vous adresser au comptoir.',
    tooManyTitle: 'Trop de requêtes', tooManyBody: 'Patientez un instant, puis actualisez.',
  },
  es: {
    title: 'Pedido {n}', yourNumber: 'Su número',
    heading: { created: 'Estamos preparando su pedido', ready: '¡Su pedido está listo!', acknowledged: 'Le esperamos en el mostrador', snoozed: 'Sin prisa', collected: 'Recogido. ¡Que aproveche!', cancelled: 'Este pedido fue cancelado', expired: 'Este ticket ha caducado' },
    detail: {
      created: 'Mantenga esta página abierta: sonará cuando su pedido esté listo.', ready: 'Por favor, acérquese al mostrador.', acknowledged: 'Gracias, se lo tendremos listo.',
      snoozed: 'Le avisaremos de nuevo a las {time}.', collected: 'Gracias por su visita.', cancelled: 'Por favor, pregunte en el mostrador.', expired: 'Por favor, pregunte en el mostrador.',
    },
    next: 'Usted es el siguiente', aheadOne: '1 pedido antes del suyo', ahead: '{n} pedidos antes del suyo', wait: 'Espera estimada: unos {m} min', waitSoon: 'Espera estimada: en cualquier momento',
    onMyWay: 'Voy para allá', snooze: 'Necesito {m} minutos más', alertMe: 'Avisarme', alertOn: 'Avisos activados: mantenga esta página abierta.',
    iosHint: 'En iPhone, las notificaciones requieren esta página en la pantalla de inicio: toque Compartir, luego «Añadir a pantalla de inicio», y ábrala desde allí. O mantenga esta página abierta.',
    refresh: 'Actualizar', offline: 'Conexión perdida, reconectando…', announcement: 'Mensaje de la tienda', rung: 'El pedido {n} está listo. Por favor, acérquese al mostrador.',
    notFoundTitle: 'Este enlace no está activo', notFoundBody: 'El ticket puede ser antiguo o el enlace estar incompleto. Por favor, pregunte en el mostrador.',
    tooManyTitle: 'Demasiadas solicitudes', tooManyBody: 'Espere un momento y actualice.',
  },
  de: {
    title: 'Bestellung {n}', yourNumber: 'Ihre Nummer',
    heading: { created: 'Wir bereiten Ihre Bestellung zu', ready: 'Ihre Bestellung ist fertig!', acknowledged: 'Bis gleich an der Theke', snoozed: 'Kein Problem', collected: 'Abgeholt. Guten Appetit!', cancelled: 'Diese Bestellung wurde storniert', expired: 'Dieses Ticket ist abgelaufen' },
    detail: {
      created: 'Lassen Sie diese Seite offen: Sie klingelt, sobald Ihre Bestellung fertig ist.', ready: 'Bitte kommen Sie zur Theke.', acknowledged: 'Danke, wir halten sie für Sie bereit.',
      snoozed: 'Wir klingeln um {time} erneut.', collected: 'Danke für Ihren Besuch.', cancelled: 'Bitte fragen Sie an der Theke.', expired: 'Bitte fragen Sie an der Theke.',
    },
    next: 'Sie sind als Nächstes dran', aheadOne: '1 Bestellung vor Ihrer', ahead: '{n} Bestellungen vor Ihrer', wait: 'Geschätzte Wartezeit: etwa {m} Min.', waitSoon: 'Geschätzte Wartezeit: jeden Moment',
    onMyWay: 'Bin unterwegs', snooze: 'Noch {m} Minuten', alertMe: 'Benachrichtigen', alertOn: 'Benachrichtigung an: Seite geöffnet lassen.',
    iosHint: 'Auf dem iPhone brauchen Mitteilungen diese Seite auf dem Home-Bildschirm: Teilen antippen, dann „Zum Home-Bildschirm“, und von dort öffnen. Oder lassen Sie diese Seite offen.',
    refresh: 'Aktualisieren', offline: 'Verbindung unterbrochen, wird wiederhergestellt…', announcement: 'Nachricht vom Geschäft', rung: 'Bestellung {n} ist fertig. Bitte kommen Sie zur Theke.',
    notFoundTitle: 'Dieser Link ist nicht aktiv', notFoundBody: 'Das Ticket ist vielleicht alt oder der Link unvollständig. Bitte fragen Sie an der Theke.',
    tooManyTitle: 'Zu viele Anfragen', tooManyBody: 'Bitte warten Sie einen Moment und aktualisieren Sie dann.',
  },
};

export const fill = (template: string, values: Record<string, string | number>): string =>
  template.replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? String(values[k]) : m));
