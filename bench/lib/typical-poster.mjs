/** The benchmarks' typical poster: Spanish and Catalan text, default colours and shapes. */
export const TYPICAL_POSTER_SPEC = {
  title: 'Señor Ñandú: fiesta del Año Nuevo',
  subtitle: 'Çà et là · Barcelona, 31 de diciembre — entrada 12 €',
  body:
    'Música en directo, “tapas” y cava hasta el amanecer.\n' +
    'Porta la teva família: l’entrada és gratuïta per als nens.\n' +
    '¿Quién dijo que el invierno era aburrido?',
};
